import LeakGraph

/// A sink that emits a synchronous source one step (one element) at a time on a scheduler, as
/// RxSwift's recursive scheduling does: on the default ``CurrentThreadScheduler`` each step is
/// queued on the thread's trampoline behind the work already there, so several synchronous
/// sources subscribed together interleave (`merge(.of(1, 2), .of(3, 4))` gives 1, 3, 2, 4).
///
/// On the trampoline the sink queues itself (no allocation per element); on another scheduler
/// each step is a scheduled action of a recursive schedule.
class SteppedSink<Observer: ObserverType>: Sink<Observer>, TrampolineItem {
    /// Emits the next element, or the terminal event; returns whether more steps follow.
    func step() -> Bool {
        fatalError("SteppedSink.step is abstract")
    }

    /// Starts stepping on `scheduler`; the result cancels the remaining steps.
    final func start(on scheduler: ImmediateSchedulerType) -> Disposable {
        // Metatype comparisons: `is` on an existential is a dynamic cast on every subscription.
        let kind = type(of: scheduler)
        if kind == SynchronousLoop.self {
            while !isStopped && step() {}
            return Disposables.create()
        }
        if kind == CurrentThreadScheduler.self {
            let trampoline = Trampoline.current
            if trampoline.isRunning {
                trampoline.enqueue(self)
            } else {
                trampoline.run { invoke() }
            }
            return Disposables.create()
        }
        return scheduler.scheduleRecursive(()) { [self] _, recurse in
            if !isStopped && step() { recurse(()) }
        }
    }

    /// One trampoline step; queues the next one behind the work queued meanwhile.
    final func invoke() {
        if !isStopped && step() { Trampoline.current.enqueue(self) }
    }
}

/// Runs actions at once, in the caller's frame. Only for sources that RxSwift iterates in a
/// plain loop while being subscribed to (the sources of `merge(_:)` and friends); a stepped
/// sink on it loops instead of recursing, so a million sources need no stack.
struct SynchronousLoop: ImmediateSchedulerType {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        action(state)
    }
}
