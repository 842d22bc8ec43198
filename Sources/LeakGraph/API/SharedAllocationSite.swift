import CLeakGraphSupport

extension LeakGraph {
    /// Runs `body` with one allocation stack, captured here, shared by every `TrackedObject`
    /// that `body` allocates on this thread.
    ///
    /// A reactive subscription allocates several objects (sinks, disposers, observers) in one
    /// call; they all have the same interesting frame, the line that subscribed. Capturing that
    /// stack once instead of once per object makes a subscription several times cheaper with
    /// stacks on. Nested calls keep the outermost site. With stacks off (or a sampled mode that
    /// skips this one) `body` just runs.
    ///
    /// ```swift
    /// func subscribe(...) -> Disposable {
    ///     LeakGraph.withSharedAllocationSite { makeSinkAndDisposer() }
    /// }
    /// ```
    @inline(__always)
    public static func withSharedAllocationSite<R>(_ body: () throws -> R) rethrows -> R {
        guard lg_get_shared_stack() == 0 else { return try body() }
        let depth = StackCapture.wanted()
        guard depth > 0 else { return try body() }
        let stackID = StackCapture.withStack(depth: depth, skip: 1) { stack, key in
            stack.flatMap { Registry.shared.internStack($0, key: key) } ?? -1
        }
        guard stackID >= 0 else { return try body() }
        lg_set_shared_stack(Int32(stackID) + 1)
        defer { lg_set_shared_stack(0) }
        return try body()
    }

    /// Runs `body` with `owner`'s own allocation stack shared by every `TrackedObject` that `body`
    /// allocates on this thread: for work a tracked object does on behalf of the subscription
    /// that made it, such as the inner subscription a `flatMap` makes for each element. Those
    /// objects are then attributed to the line that subscribed, and cost no stack capture (three
    /// per element of a `concatMap { Observable.just($0) }` otherwise). Nested calls keep the
    /// outermost site; when `owner` has no recorded stack (stacks off, or sampled out) `body`
    /// just runs.
    @inline(__always)
    package static func withAllocationSite<R>(of owner: TrackedObject, _ body: () throws -> R) rethrows -> R {
        let entered = enterAllocationSite(of: owner)
        defer { if entered { leaveAllocationSite() } }
        return try body()
    }

    /// The start of ``withAllocationSite(of:_:)`` for hot paths that avoid a closure: true when a
    /// site was entered, to be left with ``leaveAllocationSite()``.
    @inline(__always)
    package static func enterAllocationSite(of owner: TrackedObject) -> Bool {
        guard owner.isTracked, Configuration.shared.stackInterval.load(ordering: .relaxed) != 0,
            lg_get_shared_stack() == 0
        else { return false }
        return enterSite(stackOf: owner)
    }

    @inline(never)
    private static func enterSite(stackOf owner: TrackedObject) -> Bool {
        let stack = Registry.shared.stackID(slot: owner.trackingSlot)
        guard stack >= 0 else { return false }
        lg_set_shared_stack(stack + 1)
        return true
    }

    /// Runs `body` outside any shared allocation site, then restores it: for events an inner
    /// subscription delivers downstream (the user's handlers allocate at their own lines).
    package static func outsideAllocationSite<R>(_ body: () throws -> R) rethrows -> R {
        let site = lg_get_shared_stack()
        guard site != 0 else { return try body() }
        lg_set_shared_stack(0)
        defer { lg_set_shared_stack(site) }
        return try body()
    }

    /// Leaves the site ``enterAllocationSite(of:)`` entered.
    @inline(__always)
    package static func leaveAllocationSite() {
        lg_set_shared_stack(0)
    }
}
