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
        var queue: [VirtualSchedulerItem<VirtualTime>] = []
    }

    private let converter: Converter
    private let state: Locked<State>

    /// A scheduler whose clock starts at `initialClock`, converted to real time by `converter`.
    public init(initialClock: VirtualTime, converter: Converter) {
        self.converter = converter
        state = Locked(State(clock: initialClock))
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
        let item = self.state.withLock { scheduler -> VirtualSchedulerItem<VirtualTime> in
            let item = VirtualSchedulerItem(time: time, id: scheduler.nextID, token: token) { action(state) }
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
    private func nextItem(notAfter limit: VirtualTime?) -> VirtualSchedulerItem<VirtualTime>? {
        var cancelled: [VirtualSchedulerItem<VirtualTime>] = []
        defer {
            for item in cancelled { removeTrackedEdge(to: item, label: .scheduled) }
        }
        return state.withLock { state -> VirtualSchedulerItem<VirtualTime>? in
            while state.running, let front = state.queue.first {
                if front.token.isDisposed {
                    cancelled.append(pop(from: &state.queue))
                    continue
                }
                if let limit, converter.compareVirtualTime(front.time, limit) == .greaterThan { return nil }
                if converter.compareVirtualTime(front.time, state.clock) == .greaterThan { state.clock = front.time }
                return pop(from: &state.queue)
            }
            return nil
        }
    }

    private func run(_ item: VirtualSchedulerItem<VirtualTime>) {
        removeTrackedEdge(to: item, label: .scheduled)
        item.run()
    }

    private func isEarlier(_ lhs: VirtualSchedulerItem<VirtualTime>, _ rhs: VirtualSchedulerItem<VirtualTime>) -> Bool {
        switch converter.compareVirtualTime(lhs.time, rhs.time) {
        case .lessThan: true
        case .equal: lhs.id < rhs.id
        case .greaterThan: false
        }
    }

    // A binary heap ordered by (time, scheduling order).
    private func push(_ item: VirtualSchedulerItem<VirtualTime>, into heap: inout [VirtualSchedulerItem<VirtualTime>]) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard isEarlier(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop(from heap: inout [VirtualSchedulerItem<VirtualTime>]) -> VirtualSchedulerItem<VirtualTime> {
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            let right = left + 1
            let child = right < heap.count && isEarlier(heap[right], heap[left]) ? right : left
            guard isEarlier(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            parent = child
        }
        return top
    }
}

extension VirtualTimeScheduler: CustomDebugStringConvertible {
    /// The pending actions' times.
    public var debugDescription: String {
        state.withLock { state in state.queue.map { "\($0.time)" }.joined(separator: ", ") }
    }
}

/// An action pending on a virtual clock. Tracked: the scheduler's `scheduled` edge to it, and
/// its captures, show what waits for the clock.
final class VirtualSchedulerItem<Time>: TrackedObject, @unchecked Sendable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // @unchecked Sendable: immutable; the token is Sendable.
    let time: Time
    let id: Int
    let token: ScheduledWorkToken
    private let action: () -> Disposable

    init(time: Time, id: Int, token: ScheduledWorkToken, action: @escaping () -> Disposable) {
        self.time = time
        self.id = id
        self.token = token
        self.action = action
        super.init()
    }

    func run() {
        guard !token.isDisposed else { return }
        token.result.settle(action())
    }
}
