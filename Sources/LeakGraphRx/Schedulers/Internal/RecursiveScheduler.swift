import LeakGraph

/// The state of a recursion: its action until disposed, and the latest scheduled step.
private struct RecursionState<Action> {
    var action: Action?
    /// The disposable of the most recently scheduled step, to cancel it promptly.
    var pending: Disposable?
    /// Counts scheduled steps, so a step that returns after a newer one was scheduled (an
    /// immediate scheduler runs the step, which recurses, inside `schedule`) does not replace
    /// the newer one's disposable.
    var generation = 0
}

/// `scheduleRecursive` on an ``ImmediateSchedulerType``: one scheduled action per step.
///
/// Tracked: while a step is pending, the graph shows the recursion holding its action's
/// captures (a sequence's sink, for example). Disposing drops the action, so nothing it
/// captured outlives the disposal.
final class RecursiveScheduler<State>: TrackedObject, Cancelable, @unchecked Sendable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // @unchecked Sendable: the mutable state is in `state`, behind its lock; the scheduler is
    // Sendable and the action is only called, never mutated.
    typealias Action = (State, (State) -> Void) -> Void
    private let scheduler: ImmediateSchedulerType
    private let state: Locked<RecursionState<Action>>

    init(scheduler: ImmediateSchedulerType, action: @escaping Action) {
        self.scheduler = scheduler
        state = Locked(RecursionState(action: action))
        super.init()
    }

    var isDisposed: Bool { state.withLock { $0.action == nil } }

    /// Schedules the next step with `value`.
    func schedule(_ value: State) {
        let generation: Int? = state.withLock { state in
            guard state.action != nil else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        // Strong: a pending step keeps its recursion (and what the action captured) alive, as in
        // RxSwift; disposing drops the action and cancels the step.
        let scheduled = scheduler.schedule(value) { value in
            self.run(value)
            return Disposables.create()
        }
        let stale: Disposable? = state.withLock { state in
            if state.action == nil { return scheduled }
            if state.generation == generation { state.pending = scheduled }
            return nil
        }
        stale?.dispose()
    }

    private func run(_ value: State) {
        guard let action = state.withLock({ $0.action }) else { return }
        action(value) { next in self.schedule(next) }
    }

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

/// `scheduleRecursive(_:dueTime:action:)` on a ``SchedulerType``: each step may ask to run again
/// after a delay.
final class DelayedRecursiveScheduler<State>: TrackedObject, Cancelable, @unchecked Sendable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // @unchecked Sendable: as RecursiveScheduler.
    typealias Action = (State, (State, RxTimeInterval) -> Void) -> Void
    private let scheduler: SchedulerType
    private let state: Locked<RecursionState<Action>>

    init(scheduler: SchedulerType, action: @escaping Action) {
        self.scheduler = scheduler
        state = Locked(RecursionState(action: action))
        super.init()
    }

    var isDisposed: Bool { state.withLock { $0.action == nil } }

    /// Schedules the next step with `value` after `delay`.
    func schedule(_ value: State, after delay: RxTimeInterval) {
        let generation: Int? = state.withLock { state in
            guard state.action != nil else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        let scheduled = scheduler.scheduleRelative(value, dueTime: delay) { value in
            self.run(value)
            return Disposables.create()
        }
        let stale: Disposable? = state.withLock { state in
            if state.action == nil { return scheduled }
            if state.generation == generation { state.pending = scheduled }
            return nil
        }
        stale?.dispose()
    }

    private func run(_ value: State) {
        guard let action = state.withLock({ $0.action }) else { return }
        action(value) { next, delay in self.schedule(next, after: delay) }
    }

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

/// A periodic timer on a scheduler without a native one (virtual time, for example): each tick
/// schedules the next one `period` later, then runs the action, so ticks land exactly on
/// `start + k × period` on a virtual clock.
///
/// Tracked, and reported `active` until disposed: a timer nobody disposed is what keeps an
/// `interval` subscription alive, and the graph shows it holding its action's captures.
final class EmulatedPeriodicTimer<State>: TrackedObject, Cancelable, @unchecked Sendable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // @unchecked Sendable: `value` is only touched by the ticks, which the scheduler runs one at
    // a time (each is scheduled by the previous one); the rest is behind `recursion`'s lock.
    private var value: State?
    private let period: RxTimeInterval
    private let action: (State) -> State
    private var recursion: DelayedRecursiveScheduler<Void>?

    init(scheduler: SchedulerType, period: RxTimeInterval, action: @escaping (State) -> State) {
        self.period = period
        self.action = action
        super.init(label: "periodic timer")
        // The recursion's action holds the timer strongly: a running timer keeps itself (and the
        // subscription its action feeds) alive until disposed, as RxSwift's does.
        recursion = DelayedRecursiveScheduler(scheduler: scheduler) { _, recurse in
            recurse((), self.period)
            if let value = self.value { self.value = self.action(value) }
        }
        reportState(.active)
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
