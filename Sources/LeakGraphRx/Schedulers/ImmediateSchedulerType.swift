import LeakGraph

/// Something that runs work, now or later, on some thread.
///
/// Operators take a scheduler where RxSwift's do (`observe(on:)`, `subscribe(on:)`, `of(_:scheduler:)`,
/// the time operators). Conforming types must be `Sendable`: operators hand them between threads.
///
/// ```swift
/// let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "work")
/// _ = scheduler.schedule(42) { value in
///     print(value)
///     return Disposables.create()
/// }
/// ```
public protocol ImmediateSchedulerType: Sendable {
    /// Runs `action` with `state` on the scheduler, as soon as it can.
    ///
    /// - Returns: A disposable that cancels the action if it has not started (best effort).
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable
}

extension ImmediateSchedulerType {
    /// Runs `action` with `state`, and again each time the action calls `recurse` with a new state.
    ///
    /// Each recursion is a separate scheduled action, so a long recursion never grows the stack.
    /// Disposing the result stops the recursion.
    ///
    /// ```swift
    /// _ = scheduler.scheduleRecursive(3) { count, recurse in
    ///     print(count)
    ///     if count > 0 { recurse(count - 1) }   // 3, 2, 1, 0
    /// }
    /// ```
    public func scheduleRecursive<State>(
        _ state: State, action: @escaping (_ state: State, _ recurse: (State) -> Void) -> Void
    ) -> Disposable {
        let recursion = RecursiveScheduler(scheduler: self, action: action)
        recursion.schedule(state)
        return recursion
    }
}
