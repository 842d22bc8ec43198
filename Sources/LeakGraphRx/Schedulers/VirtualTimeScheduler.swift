import Foundation
import LeakGraph

/// A scheduler on a virtual clock: work runs in due-time order (ties in scheduling order) when
/// ``start()`` or ``advanceTo(_:)`` drives the clock, never by itself.
///
/// Each pending action is a tracked object the scheduler reports holding (`scheduled` edges),
/// so a check made while the clock is stopped shows which pending action keeps what alive.
/// Thread safety: scheduling is safe from any thread; drive the clock from one thread at a time.
///
/// ```swift
/// let scheduler = HistoricalScheduler()
/// _ = scheduler.scheduleRelative((), dueTime: .seconds(10)) { _ in print("10 s later"); return Disposables.create() }
/// scheduler.start()
/// ```
open class VirtualTimeScheduler<Converter: VirtualTimeConverterType>: TrackedObject, SchedulerType,
    @unchecked Sendable
{
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // @unchecked Sendable: the mutable state is in `state`, behind its lock; the converter is
    // only read.
    /// A point on the virtual clock.
    public typealias VirtualTime = Converter.VirtualTimeUnit
    /// A span of virtual time.
    public typealias VirtualTimeInterval = Converter.VirtualTimeIntervalUnit

    private struct State {
        var clock: VirtualTime
        var running = false
        var nextID = 0
        /// A binary heap ordered by (time, scheduling order). Its element type is not generic, so
        /// that heap operations compile to plain code (generic array code looked up metadata on
        /// every swap: most of a virtual event's cost).
        var queue: [VirtualSchedulerItem] = []
    }

    private let converter: Converter
    private let state: Locked<State>
    /// The converter's comparison, made once and shared by every item.
    private let order: (VirtualTime, VirtualTime) -> VirtualTimeComparison

    /// A scheduler whose clock starts at `initialClock`, converted to real time by `converter`.
    public init(initialClock: VirtualTime, converter: Converter) {
        self.converter = converter
        state = Locked(State(clock: initialClock))
        order = { converter.compareVirtualTime($0, $1) }
        super.init()
    }

    /// The virtual clock's real time.
    public var now: RxTime { converter.convertFromVirtualTime(clock) }

    /// The virtual clock.
    public var clock: VirtualTime { state.withLock { $0.clock } }

    /// Runs `action` at the current virtual time (after what is already due now).
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .microseconds(0), action: action)
    }

    /// Runs `action` once `dueTime` of virtual time has passed.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let time = converter.convertToVirtualTime(now.adding(dueTime))
        return scheduleAbsoluteVirtual(state, time: adjustScheduledTime(time), action: action)
    }

    /// Runs `action` once `dueTime` (in virtual units) has passed.
    public func scheduleRelativeVirtual<StateType>(
        _ state: StateType, dueTime: VirtualTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let time = converter.offsetVirtualTime(clock, offset: dueTime)
        return scheduleAbsoluteVirtual(state, time: time, action: action)
    }

    /// Runs `action` at virtual time `time`.
    public func scheduleAbsoluteVirtual<StateType>(
        _ state: StateType, time: VirtualTime, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let token = ScheduledWorkToken()
        let item = self.state.withLock { scheduler -> VirtualSchedulerItem in
            let item = TimedVirtualSchedulerItem(time: time, order: order, id: scheduler.nextID, token: token) {
                action(state)
            }
            scheduler.nextID += 1
            push(item, into: &scheduler.queue)
            return item
        }
        addTrackedEdge(to: item, label: .scheduled)
        return token
    }

    /// Lets a subclass move scheduled times (``TestScheduler`` moves "now" one tick later).
    open func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime {
        time
    }

    /// Runs every pending action in time order, moving the clock to each one's time, until none
    /// is left or ``stop()`` is called.
    public func start() {
        guard
            state.withLock({ state in
                if state.running { return false }
                state.running = true
                return true
            })
        else { return }
        while let item = nextItem(notAfter: nil) {
            run(item)
        }
        state.withLock { $0.running = false }
    }

    /// Runs the actions due up to `virtualTime`, then sets the clock to it.
    public func advanceTo(_ virtualTime: VirtualTime) {
        let started = state.withLock { state in
            if state.running { return false }
            state.running = true
            return true
        }
        precondition(started, "VirtualTimeScheduler.advanceTo called while the scheduler is running")
        while let item = nextItem(notAfter: virtualTime) {
            run(item)
        }
        state.withLock { state in
            if self.converter.compareVirtualTime(virtualTime, state.clock) == .greaterThan {
                state.clock = virtualTime
            }
            state.running = false
        }
    }

    /// Moves the clock forward by `virtualInterval` without running anything.
    public func sleep(_ virtualInterval: VirtualTimeInterval) {
        state.withLock { state in
            let target = converter.offsetVirtualTime(state.clock, offset: virtualInterval)
            precondition(converter.compareVirtualTime(target, state.clock) != .lessThan, "Can't sleep to past.")
            state.clock = target
        }
    }

    /// Stops ``start()`` / ``advanceTo(_:)`` after the running action.
    public func stop() {
        state.withLock { $0.running = false }
    }

    /// The next live item due no later than `limit` (any when nil), with the clock moved to its
    /// time; nil when none, or when stopped.
    private func nextItem(notAfter limit: VirtualTime?) -> VirtualSchedulerItem? {
        var cancelled: [VirtualSchedulerItem] = []
        defer {
            for item in cancelled { removeTrackedEdge(to: item, label: .scheduled) }
        }
        return state.withLock { state -> VirtualSchedulerItem? in
            while state.running, let front = state.queue.first {
                if front.token.isDisposed {
                    cancelled.append(Self.pop(from: &state.queue))
                    continue
                }
                let time = unsafeDowncast(front, to: TimedVirtualSchedulerItem<VirtualTime>.self).time
                if let limit, converter.compareVirtualTime(time, limit) == .greaterThan { return nil }
                if converter.compareVirtualTime(time, state.clock) == .greaterThan { state.clock = time }
                return Self.pop(from: &state.queue)
            }
            return nil
        }
    }

    private func run(_ item: VirtualSchedulerItem) {
        removeTrackedEdge(to: item, label: .scheduled)
        item.run()
    }

    // A binary heap ordered by (time, scheduling order), sifting a hole instead of swapping.
    private func push(_ item: VirtualSchedulerItem, into heap: inout [VirtualSchedulerItem]) {
        heap.append(item)
        heap.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard item.isEarlier(than: heap[parent]) else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = item
        }
    }

    private static func pop(from heap: inout [VirtualSchedulerItem]) -> VirtualSchedulerItem {
        let top = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        heap.withUnsafeMutableBufferPointer { heap in
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { break }
                let right = left + 1
                let child = right < heap.count && heap[right].isEarlier(than: heap[left]) ? right : left
                guard heap[child].isEarlier(than: last) else { break }
                heap[parent] = heap[child]
                parent = child
            }
            heap[parent] = last
        }
        return top
    }
}

extension VirtualTimeScheduler: CustomDebugStringConvertible {
    /// The pending actions' times.
    public var debugDescription: String {
        state.withLock { state in
            state.queue.map { "\(unsafeDowncast($0, to: TimedVirtualSchedulerItem<VirtualTime>.self).time)" }
                .joined(separator: ", ")
        }
    }
}

/// An action pending on a virtual clock. Tracked: the scheduler's `scheduled` edge to it, and
/// its captures, show what waits for the clock. Not generic, so that the scheduler's heap of them
/// is plain code; its time lives in ``TimedVirtualSchedulerItem``.
class VirtualSchedulerItem: TrackedObject {
    // Thread-safe: immutable; the token is Sendable.
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    let id: Int
    let token: ScheduledWorkToken
    private let action: () -> Disposable

    init(id: Int, token: ScheduledWorkToken, action: @escaping () -> Disposable) {
        self.id = id
        self.token = token
        self.action = action
        super.init()
    }

    /// Whether it runs before `other`: earlier time, or same time and scheduled first.
    func isEarlier(than other: VirtualSchedulerItem) -> Bool {
        fatalError("VirtualSchedulerItem.isEarlier is abstract")
    }

    func run() {
        guard !token.isDisposed else { return }
        token.result.settle(action())
    }
}

/// A pending action with its virtual time.
final class TimedVirtualSchedulerItem<Time>: VirtualSchedulerItem {
    // Thread-safe: immutable.
    let time: Time
    private let order: (Time, Time) -> VirtualTimeComparison

    init(
        time: Time, order: @escaping (Time, Time) -> VirtualTimeComparison, id: Int, token: ScheduledWorkToken,
        action: @escaping () -> Disposable
    ) {
        self.time = time
        self.order = order
        super.init(id: id, token: token, action: action)
    }

    override func isEarlier(than other: VirtualSchedulerItem) -> Bool {
        // Every item of one scheduler has the same time type.
        let other = unsafeDowncast(other, to: Self.self)
        switch order(time, other.time) {
        case .lessThan: return true
        case .equal: return id < other.id
        case .greaterThan: return false
        }
    }
}
