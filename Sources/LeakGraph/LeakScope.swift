import Synchronization

/// A region of execution whose tracked allocations are attributed to it, even when other scopes
/// run at the same time on other tasks (as Swift Testing runs tests in parallel).
///
/// Objects allocated while a scope is current on the allocating task (or any task it starts with
/// structured concurrency) carry the scope's id; ``LeakGraph/liveObjects(in:)`` returns the ones
/// still alive. Objects allocated on threads outside the task tree (a `DispatchQueue`, a `Thread`)
/// carry no scope; checkpoints still see them.
public struct LeakScope: Sendable, Hashable {
    /// The scope's id (never 0).
    public let id: UInt32
    /// The checkpoint taken when the scope began.
    public let checkpoint: Checkpoint

    @TaskLocal static var current: UInt32 = 0

    private static let nextID = Atomic<UInt32>(1)

    /// Runs `body` with a new scope current and returns the scope with the body's result.
    public static func run<R>(_ body: () async throws -> R) async rethrows -> (scope: LeakScope, result: R) {
        let scope = LeakScope(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, checkpoint: LeakGraph.checkpoint())
        Configuration.shared.openScopes.wrappingAdd(1, ordering: .relaxed)
        defer { Configuration.shared.openScopes.wrappingSubtract(1, ordering: .relaxed) }
        let result = try await $current.withValue(scope.id) { try await body() }
        return (scope, result)
    }

    /// Synchronous form of ``run(_:)``.
    public static func run<R>(_ body: () throws -> R) rethrows -> (scope: LeakScope, result: R) {
        let scope = LeakScope(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, checkpoint: LeakGraph.checkpoint())
        Configuration.shared.openScopes.wrappingAdd(1, ordering: .relaxed)
        defer { Configuration.shared.openScopes.wrappingSubtract(1, ordering: .relaxed) }
        let result = try $current.withValue(scope.id) { try body() }
        return (scope, result)
    }

    /// The current scope's id, reading the task-local only while some scope is open.
    @inline(__always)
    static func currentScopeIDIfAny() -> UInt32 {
        Configuration.shared.openScopes.load(ordering: .relaxed) > 0 ? current : 0
    }
}

/// A point in the allocation sequence: objects allocated after it have larger ids.
public struct Checkpoint: Sendable, Hashable, Codable, Comparable {
    /// The id the next tracked allocation would get when the checkpoint was taken.
    public let nextObjectID: UInt64

    /// Creates a checkpoint at a given id (useful with ids read from a dump).
    public init(nextObjectID: UInt64) {
        self.nextObjectID = nextObjectID
    }

    /// Whether `checkpoint` was taken before `other`.
    public static func < (lhs: Checkpoint, rhs: Checkpoint) -> Bool { lhs.nextObjectID < rhs.nextObjectID }
}
