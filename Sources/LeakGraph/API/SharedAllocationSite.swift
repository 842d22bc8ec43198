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
        let stackID = StackCapture.withStack(depth: depth, skip: 1) { stack in
            stack.flatMap { Registry.shared.internStack($0) } ?? -1
        }
        guard stackID >= 0 else { return try body() }
        lg_set_shared_stack(Int32(stackID) + 1)
        defer { lg_set_shared_stack(0) }
        return try body()
    }
}
