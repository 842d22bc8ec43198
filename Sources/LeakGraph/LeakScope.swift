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
    /// Whether no other scope was open at any time while this one ran: then objects allocated
    /// outside the task tree (on a queue or thread) since the checkpoint can be blamed on it.
    public private(set) var ranAlone = false

    @TaskLocal static var current: UInt32 = 0

    /// The id of the scope the current task runs in, or nil outside any scope.
    public static var currentID: UInt32? { current == 0 ? nil : current }

    private static let nextID = Atomic<UInt32>(1)
    /// How many scopes have started, ever; with the open count, tells whether another scope
    /// overlapped this one.
    private static let started = Atomic<Int>(0)

    private static func begin() -> (scope: LeakScope, startedBefore: Int, alone: Bool) {
        let scope = LeakScope(
            id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, checkpoint: LeakGraph.checkpoint())
        let open = Configuration.shared.openScopes.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        let startedBefore = started.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        return (scope, startedBefore, open == 1)
    }

    private static func end(_ begun: (scope: LeakScope, startedBefore: Int, alone: Bool)) -> LeakScope {
        let open = Configuration.shared.openScopes.wrappingSubtract(1, ordering: .sequentiallyConsistent).oldValue
        var scope = begun.scope
        scope.ranAlone =
            begun.alone && open == 1 && started.load(ordering: .sequentiallyConsistent) == begun.startedBefore
        return scope
    }

    /// Runs `body` with a new scope current and returns the scope with the body's result.
    public static func run<R>(_ body: () async throws -> R) async rethrows -> (scope: LeakScope, result: R) {
        let begun = begin()
        do {
            let result = try await $current.withValue(begun.scope.id) { try await body() }
            return (end(begun), result)
        } catch {
            _ = end(begun)
            throw error
        }
    }

    /// Synchronous form of ``run(_:)``.
    public static func run<R>(_ body: () throws -> R) rethrows -> (scope: LeakScope, result: R) {
        let begun = begin()
        do {
            let result = try $current.withValue(begun.scope.id) { try body() }
            return (end(begun), result)
        } catch {
            _ = end(begun)
            throw error
        }
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
