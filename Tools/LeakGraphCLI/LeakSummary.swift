/// What `leakgraph report` says about one dump, as plain data (rendered as text by
/// ``ReportText`` or as JSON with `--format json`).
public struct LeakSummary: Sendable, Hashable, Codable {
    /// The dump file.
    public var file: String
    /// The process that wrote it, when recorded.
    public var pid: Int32?
    /// Objects in the dump.
    public var objectCount: Int
    /// Edges in the dump.
    public var edgeCount: Int
    /// Objects the dump marks as leaked (members of leaked cycles and what only they hold).
    public var leakedObjectCount: Int
    /// Leaked cycles grouped by signature, most frequent first.
    public var leakedCycles: [CycleGroup]
    /// Cycles kept alive by something outside them.
    public var retainedCycles: [RetainedCycle]
    /// Objects in no cycle held by references the graph does not show.
    public var unknownOwners: [ObjectEntry]
    /// Objects that finished (disposed, completed, errored) but are still alive.
    public var finishedButHeld: [ObjectEntry]
    /// Object count by type, largest first (at most `--top`).
    public var topTypes: [Tally]
    /// Object count by allocation site (the first user-code frame), largest first (at most `--top`).
    public var topSites: [Tally]

    /// Whether anything leaked.
    public var hasLeaks: Bool { leakedObjectCount > 0 || !leakedCycles.isEmpty }

    /// Leaked cycles with the same signature.
    public struct CycleGroup: Sendable, Hashable, Codable {
        /// Address-free identity shared by the group.
        public var signature: String
        /// How many cycles have it.
        public var count: Int
        /// The first cycle's loop: `Child —parent→ Parent —child→ Child`.
        public var loop: String
        /// Members of the first cycle, loop order first.
        public var members: [ObjectEntry]
        /// Member ids of every cycle in the group.
        public var cycles: [[UInt64]]
        /// Which edge to remove and how, when one could be chosen.
        public var hint: Hint?
        /// The first cycle in one sentence: what leaked, what holds it, where to fix it.
        public var verdict: String?
    }

    /// A cycle that is alive because something outside holds it.
    public struct RetainedCycle: Sendable, Hashable, Codable {
        /// Address-free identity.
        public var signature: String
        /// The loop.
        public var loop: String
        /// Member ids.
        public var objects: [UInt64]
        /// Members held from outside the cycle.
        public var holders: [Holder]
        /// Which edge to remove once the outside holders let go, and how.
        public var hint: Hint?
        /// The cycle in one sentence.
        public var verdict: String?
    }

    /// A member of a retained cycle held from outside it.
    public struct Holder: Sendable, Hashable, Codable {
        /// The member.
        public var object: ObjectEntry
        /// References the graph does not explain.
        public var unexplained: Int
        /// Known objects outside the cycle holding it strongly.
        public var knownHolders: [ObjectEntry]
    }

    /// One object as reports name it.
    public struct ObjectEntry: Sendable, Hashable, Codable {
        /// Its id.
        public var id: UInt64
        /// Its type (`?` when the id is not in the dump).
        public var type: String
        /// Its label.
        public var label: String?
        /// Its lifecycle state, when it reported one.
        public var state: String?
        /// Unexplained references, for unknown owners.
        public var unexplained: Int?
        /// The first user-code frame of its allocation stack.
        public var site: String?
        /// Its whole allocation stack, innermost first.
        public var stack: [String]?

        /// `Type "label" #id`.
        public var displayName: String {
            if let label { return "\(type) \"\(label)\" #\(id)" }
            return "\(type) #\(id)"
        }
    }

    /// A count of objects under one name (a type or an allocation site).
    public struct Tally: Sendable, Hashable, Codable {
        /// The type or site.
        public var name: String
        /// Objects.
        public var count: Int
        /// Of which leaked.
        public var leaked: Int
    }

    /// The edge whose removal frees a cycle, and the usual fix.
    public struct Hint: Sendable, Hashable, Codable {
        /// The owner.
        public var from: UInt64
        /// The target.
        public var to: UInt64
        /// The edge's label.
        public var label: String
        /// The edge as text: `Child —parent→ Parent`.
        public var edge: String
        /// The usual fix.
        public var fix: String

        /// `Fix: cut <edge>: <fix>`: the same line as test failures and the demo.
        public var line: String { "Fix: cut \(edge): \(fix)" }
    }
}
