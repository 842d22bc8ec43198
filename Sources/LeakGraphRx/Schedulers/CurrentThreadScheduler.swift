import LeakGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs work on the current thread, after the work already running there: RxSwift's trampoline.
///
/// The first action scheduled on a thread runs at once; actions scheduled while it runs (on the
/// same thread) are queued and run, in order, when it returns, before `schedule` returns to the
/// outermost caller. Subscribing to any operator goes through it, so re-entrant subscriptions
/// are queued instead of nested, and synchronous sources interleave as in RxSwift:
///
/// ```swift
/// Observable.merge(.of(1, 2), .of(3, 4)).subscribe(onNext: { print($0) })   // 1, 3, 2, 4
/// ```
///
/// Queued actions are not tracked objects: they exist only while the outermost `schedule` call
/// is on the stack, so no leak check made outside it can find one.
public final class CurrentThreadScheduler: ImmediateSchedulerType, Sendable {
    /// The shared instance (the scheduler has no state of its own: the queue is per thread).
    public static let instance = CurrentThreadScheduler()

    /// Whether nothing runs on this thread's trampoline: a scheduled action would run at once.
    public static var isScheduleRequired: Bool { !(Trampoline.existing?.isRunning ?? false) }

    private init() {}

    /// Runs `action` now if the thread's trampoline is idle (then everything queued meanwhile),
    /// or queues it behind the running action.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable)
        -> Disposable
    {
        let trampoline = Trampoline.current
        if trampoline.isRunning {
            let item = TrampolineAction(state: state, action: action)
            trampoline.enqueue(item)
            return item
        }
        return trampoline.run { action(state) }
    }
}

/// Work queued on a thread's trampoline.
protocol TrampolineItem: AnyObject {
    /// Runs the work (unless it was cancelled).
    func invoke()
}

/// A queued action with its state; disposing it cancels it if it has not run, or disposes
/// what it returned.
private final class TrampolineAction<State>: TrampolineItem, Disposable {
    // Thread-safe: `state` and `action` are only touched by the owning thread (which runs
    // the queue); `dispose` may come from any thread and only touches `result`, behind its lock.
    private var state: State?
    private var action: ((State) -> Disposable)?
    private let result = Locked(ScheduledResult())

    init(state: State, action: @escaping (State) -> Disposable) {
        self.state = state
        self.action = action
    }

    func invoke() {
        let (state, action) = (self.state, self.action)
        self.state = nil
        self.action = nil
        guard let state, let action, !result.withLock({ $0.disposed }) else { return }
        result.settle(action(state))
    }

    func dispose() {
        result.disposeResult()
    }
}

/// What a scheduled action returned, and whether it was disposed before or after.
struct ScheduledResult {
    var disposable: Disposable?
    var disposed = false
}

extension Locked where State == ScheduledResult {
    /// Keeps `disposable`, or disposes it at once if the action was disposed meanwhile.
    func settle(_ disposable: Disposable) {
        let disposeNow = withLock { result -> Bool in
            if result.disposed { return true }
            result.disposable = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Marks the action disposed and disposes what it returned, once.
    func disposeResult() {
        let disposable: Disposable? = withLock { result in
            guard !result.disposed else { return nil }
            result.disposed = true
            defer { result.disposable = nil }
            return result.disposable
        }
        disposable?.dispose()
    }

    var isDisposed: Bool { withLock { $0.disposed } }
}

/// One thread's trampoline queue.
final class Trampoline {
    private(set) var isRunning = false
    private var queue: [TrampolineItem] = []
    private var head = 0

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            // The thread is exiting: release its trampoline.
            #if canImport(Darwin)
                Unmanaged<Trampoline>.fromOpaque(pointer).release()
            #else
                if let pointer { Unmanaged<Trampoline>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "LeakGraphRx: pthread_key_create failed (\(status))")
        return key
    }()

    /// This thread's trampoline, if it has one.
    static var existing: Trampoline? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Trampoline>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// This thread's trampoline, made on first use and kept until the thread exits.
    static var current: Trampoline {
        currentUnmanaged.takeUnretainedValue()
    }

    /// ``current`` without a retain: the thread keeps its trampoline alive until it exits, so a
    /// caller on that thread may use it unretained (subscribing does, on every subscription).
    @inline(__always)
    static var currentUnmanaged: Unmanaged<Trampoline> {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Trampoline>.fromOpaque(pointer) }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<Trampoline> {
        let made = Unmanaged.passRetained(Trampoline())
        pthread_setspecific(key, made.toOpaque())
        return made
    }

    /// Queues `item` behind the running work.
    func enqueue(_ item: TrampolineItem) {
        queue.append(item)
    }

    /// Runs `body`, then everything queued while it (or the queued work) runs.
    @inline(__always)
    func run<Result>(_ body: () -> Result) -> Result {
        isRunning = true
        let result = body()
        if head < queue.count { drain() }
        isRunning = false
        return result
    }

    @inline(never)
    private func drain() {
        while head < queue.count {
            let item = queue[head]
            head += 1
            item.invoke()
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 64)
        head = 0
    }
}
