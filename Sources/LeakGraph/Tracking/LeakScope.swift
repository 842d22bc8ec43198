import CLeakGraphSupport
import Synchronization

/// A region of execution whose tracked allocations are attributed to it, even when other scopes
/// run at the same time on other tasks (as Swift Testing runs tests in parallel).
///
/// Objects allocated while a scope is current on the allocating task (or any task it starts with
/// structured concurrency, including `Task { }`) carry the scope's id; ``LeakGraph/liveObjects(in:)``
/// returns the ones still alive. Objects allocated outside the task tree (a `DispatchQueue`, a
/// `Thread`, `Task.detached`) while scopes are open carry ``offTaskScopeID(for:)`` of the scope
/// when it was the only one open, so that work a test sent elsewhere can still be blamed on it,
/// and ``unattributedScopeID`` when several were open, so that it is reported rather than ignored.
public struct LeakScope: Sendable, Hashable {
    /// The scope's id (never 0).
    public let id: UInt32
    /// The checkpoint taken when the scope began.
    public let checkpoint: Checkpoint
    /// Whether no other scope was open at any time while this one ran: then objects allocated
    /// outside the task tree (on a queue or thread) since the checkpoint can be blamed on it.
    public private(set) var ranAlone = false
    /// The checkpoint taken when the scope ended (nil while it runs): objects allocated between
    /// ``checkpoint`` and this one were allocated while it ran.
    public private(set) var endCheckpoint: Checkpoint?

    /// The scope id carried by objects allocated outside every scope's task tree while `scope`
    /// was the only scope open (a `DispatchQueue` block, a `Thread`, `Task.detached`).
    public static func offTaskScopeID(for scope: UInt32) -> UInt32 { scope | offTaskBit }
    /// The scope id carried by objects allocated outside every scope's task tree while several
    /// scopes were open: which one caused them cannot be known.
    public static let unattributedScopeID: UInt32 = .max
    static let offTaskBit: UInt32 = 1 << 31

    /// Scopes open now, and the id that off-task allocations get (kept in step under one lock;
    /// the allocation path reads only the atomic).
    private static let openIDs = Locked<Set<UInt32>>([], heldAcrossFork: true)
    private static let offTaskID = Atomic<UInt32>(0)

    @TaskLocal static var current: UInt32 = 0

    /// The id of the scope the current task runs in, or nil outside any scope.
    public static var currentID: UInt32? { current == 0 ? nil : current }

    private static let nextID = Atomic<UInt32>(1)
    /// How many scopes have started, ever; with the open count, tells whether another scope
    /// overlapped this one.
    private static let started = Atomic<Int>(0)

    private static func begin() -> (scope: LeakScope, startedBefore: Int, alone: Bool) {
        // Whole-process tracking started from the environment learns how to read scopes here,
        // from the first scope on.
        ProcessTracking.installScopeProvider()
        let scope = LeakScope(
            id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, checkpoint: LeakGraph.checkpoint())
        openIDs.withLock { open in
            open.insert(scope.id)
            offTaskID.store(open.count == 1 ? offTaskScopeID(for: scope.id) : unattributedScopeID, ordering: .relaxed)
        }
        let open = lg_scopes_opened(1)
        let startedBefore = started.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        return (scope, startedBefore, open == 1)
    }

    private static func end(_ begun: (scope: LeakScope, startedBefore: Int, alone: Bool)) -> LeakScope {
        let open = lg_scopes_opened(-1) + 1
        openIDs.withLock { open in
            open.remove(begun.scope.id)
            let next: UInt32
            switch open.count {
            case 0: next = 0
            case 1: next = offTaskScopeID(for: open.first!)
            default: next = unattributedScopeID
            }
            offTaskID.store(next, ordering: .relaxed)
        }
        var scope = begun.scope
        scope.endCheckpoint = LeakGraph.checkpoint()
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

    /// Initialises every lazy global ``currentScopeIDIfAny()`` reads. The allocation hook of
    /// whole-process tracking calls it: initialising one of them from inside the hook (their
    /// initialisers allocate) would wait on the very initialisation this thread is running.
    static func prepareForAllocationHook() {
        _ = Configuration.shared
        _ = current
        _ = offTaskID.load(ordering: .relaxed)
    }

    /// The current scope's id, reading the task-local only while some scope is open; outside
    /// every scope's task tree, the off-task id of the open scope(s).
    @inline(__always)
    static func currentScopeIDIfAny() -> UInt32 {
        guard lg_open_scope_count() > 0 else { return 0 }
        let id = current
        return id != 0 ? id : offTaskID.load(ordering: .relaxed)
    }
}

/// A point in the allocation sequence: objects allocated after it have larger ids.
///
/// Taken with `LeakGraph.checkpoint(recordingLiveObjects: true)`, it also remembers which objects
/// were alive, so `LeakGraph.changes(since:)` can say which died. Equality, hashing, ordering and
/// coding use the position only.
public struct Checkpoint: Sendable, Hashable, Codable, Comparable {
    /// The id the next tracked allocation would get when the checkpoint was taken.
    public let nextObjectID: UInt64
    /// The objects alive when it was taken, for a recording checkpoint.
    var liveAtCheckpoint: LiveObjectRecord? = nil

    private enum CodingKeys: String, CodingKey {
        case nextObjectID
    }

    /// Creates a checkpoint at a given id (useful with ids read from a dump).
    public init(nextObjectID: UInt64) {
        self.nextObjectID = nextObjectID
    }

    /// Whether the checkpoint recorded which objects were alive.
    public var recordsLiveObjects: Bool { liveAtCheckpoint != nil }

    /// Whether `checkpoint` was taken before `other`.
    public static func < (lhs: Checkpoint, rhs: Checkpoint) -> Bool { lhs.nextObjectID < rhs.nextObjectID }

    /// Same position.
    public static func == (lhs: Checkpoint, rhs: Checkpoint) -> Bool { lhs.nextObjectID == rhs.nextObjectID }

    /// Hashes the position.
    public func hash(into hasher: inout Hasher) { hasher.combine(nextObjectID) }
}
