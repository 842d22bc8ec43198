import LeakGraph

/// What both recursions keep: the action until disposed, and the latest scheduled step's
/// disposable, to cancel it promptly.
private final class RecursionCore<Action> {
    // Thread-safe: the mutable state is behind its lock; the action is only called.
    private struct State {
        var action: Action?
        var pending: Disposable?
        /// Counts scheduled steps, so a step that returns after a newer one was scheduled (an
        /// immediate scheduler runs the step, which recurses, inside `schedule`) does not replace
        /// the newer one's disposable.
        var generation = 0
    }

    private let state: Locked<State>

    init(action: Action) {
        state = Locked(State(action: action))
    }

    var action: Action? { state.withLock { $0.action } }

    /// Schedules one step with `makeStep` unless disposed, keeping its disposable.
    func schedule(_ makeStep: () -> Disposable) {
        let generation: Int? = state.withLock { state in
            guard state.action != nil else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        let scheduled = makeStep()
        let stale: Disposable? = state.withLock { state in
            if state.action == nil { return scheduled }
            if state.generation == generation { state.pending = scheduled }
            return nil
        }
        stale?.dispose()
    }

    /// Drops the action (and what it captured) and cancels the pending step.
    func dispose() {
        let dropped = state.withLock { state in
            let dropped = (state.action, state.pending)
            state.action = nil
            state.pending = nil
            return dropped
        }
        dropped.1?.dispose()
    }
}

/// `scheduleRecursive` on an ``ImmediateSchedulerType``: one scheduled action per step.
///
/// Tracked: while a step is pending, the graph shows the recursion holding its action's
/// captures (a sequence's sink, for example). Disposing drops the action, so nothing it
/// captured outlives the disposal.
final class RecursiveScheduler<State>: TrackedObject, Cancelable {
    // Thread-safe: the mutable state is in `core`, behind its lock; the scheduler is
    // Sendable.
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    typealias Action = (State, (State) -> Void) -> Void
    private let scheduler: ImmediateSchedulerType
    private let core: RecursionCore<Action>

    init(scheduler: ImmediateSchedulerType, action: @escaping Action) {
        self.scheduler = scheduler
        core = RecursionCore(action: action)
        super.init()
    }

    var isDisposed: Bool { core.action == nil }

    /// Schedules the next step with `value`.
    func schedule(_ value: State) {
        // Strong: a pending step keeps its recursion (and what the action captured) alive, as in
        // RxSwift; disposing drops the action and cancels the step.
        core.schedule {
            scheduler.schedule(value) { value in
                self.run(value)
                return Disposables.create()
            }
        }
    }

    private func run(_ value: State) {
        guard let action = core.action else { return }
        action(value) { next in self.schedule(next) }
    }

    func dispose() { core.dispose() }
}

/// `scheduleRecursive(_:dueTime:action:)` on a ``SchedulerType``: each step may ask to run again
/// after a delay.
final class DelayedRecursiveScheduler<State>: TrackedObject, Cancelable {
    // Thread-safe: as RecursiveScheduler.
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    typealias Action = (State, (State, RxTimeInterval) -> Void) -> Void
    private let scheduler: SchedulerType
    private let core: RecursionCore<Action>

    init(scheduler: SchedulerType, action: @escaping Action) {
        self.scheduler = scheduler
        core = RecursionCore(action: action)
        super.init()
    }

    var isDisposed: Bool { core.action == nil }

    /// Schedules the next step with `value` after `delay`.
    func schedule(_ value: State, after delay: RxTimeInterval) {
        core.schedule {
            scheduler.scheduleRelative(value, dueTime: delay) { value in
                self.run(value)
                return Disposables.create()
            }
        }
    }

    private func run(_ value: State) {
        guard let action = core.action else { return }
        action(value) { next, delay in self.schedule(next, after: delay) }
    }

    func dispose() { core.dispose() }
}

/// A periodic timer on a scheduler without a native one (virtual time, for example): each tick
/// schedules the next one `period` later, then runs the action, so ticks land exactly on
/// `start + k × period` on a virtual clock.
///
/// Tracked, and reported `active` until disposed: a timer nobody disposed is what keeps an
/// `interval` subscription alive, and the graph shows it holding its action's captures.
final class EmulatedPeriodicTimer<State>: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: `value` is only touched by the ticks, which the scheduler runs one at
    // a time (each is scheduled by the previous one); the rest is behind `recursion`'s lock.
    private var value: State?
    private var recursion: DelayedRecursiveScheduler<Void>?

    init(scheduler: SchedulerType, period: RxTimeInterval, action: @escaping (State) -> State) {
        super.init(label: "periodic timer", state: .active)
        // The recursion's action holds the timer strongly: a running timer keeps itself (and the
        // subscription its action feeds) alive until disposed, as RxSwift's does. It holds the
        // timer's action too, so that disposing (which drops the recursion's action) lets go of
        // it, as RxSwift's timer does: the action often captures what holds the timer's
        // disposable (`timer = scheduler.schedulePeriodic { … timer?.dispose() … }`).
        recursion = DelayedRecursiveScheduler(scheduler: scheduler) { _, recurse in
            recurse((), period)
            if let value = self.value { self.value = action(value) }
        }
    }

    var isDisposed: Bool { recursion?.isDisposed ?? true }

    func start(_ state: State, after delay: RxTimeInterval) {
        value = state
        recursion?.schedule((), after: delay)
    }

    func dispose() {
        recursion?.dispose()
        reportState(.disposed)
    }
}
