/// What the ``LeakDetector`` found in a snapshot.
public struct LeakReport: Sendable, Hashable {
    /// Every strongly connected group of strong references (two or more objects, or one object
    /// that holds itself), leaked ones first, then by signature.
    public var cycles: [Cycle]
    /// Ids of every object nothing outside the leaked garbage holds: members of leaked cycles
    /// and the objects only they keep alive.
    public var leakedObjectIDs: Set<UInt64>
    /// Objects in no cycle whose retain count exceeds their known strong in-edges: held by
    /// something the graph does not show (a local, a global, a closure, an untracked object).
    public var unknownOwners: [UnknownOwner]
    /// Objects that reported a finished state (disposed, completed, errored) but are still
    /// alive: something (a cycle, a bag, a local) still holds a subscription that has ended.
    public var finishedButHeld: [UInt64]
    /// Objects that reported themselves `active` and that something outside the leaked garbage
    /// can still send events to: at the end of a test, a subscription it never ended (see
    /// ``LifecycleAnalysis``). Ascending; leaked objects are not listed.
    public var neverFinished: [UInt64] = []
    /// Objects that reported themselves `active` but that nothing outside can ever send an event,
    /// a completion or an error: they end only when disposed, so a subscription among them is a
    /// leak even while a bag, a scheduler or a timer holds it (see ``LifecycleAnalysis``).
    /// Ascending; leaked objects are not listed.
    public var canNeverFinish: [UInt64] = []
    /// Retained cycles that only references LeakGraph could not read may be holding: leaked if
    /// those are the references their retain counts do not explain (see ``PossibleLeak``).
    public var possibleLeaks: [PossibleLeak] = []

    /// The leaked cycles.
    public var leakedCycles: [Cycle] { cycles.filter(\.leaked) }
    /// The cycles that are alive because something outside holds them.
    public var retainedCycles: [Cycle] { cycles.filter { !$0.leaked } }
    /// Whether anything leaked.
    public var hasLeaks: Bool { !leakedObjectIDs.isEmpty }

    /// Creates a report (tools build filtered reports this way).
    public init(
        cycles: [Cycle], leakedObjectIDs: Set<UInt64>, unknownOwners: [UnknownOwner] = [],
        finishedButHeld: [UInt64] = [], neverFinished: [UInt64] = [], canNeverFinish: [UInt64] = []
    ) {
        self.cycles = cycles
        self.leakedObjectIDs = leakedObjectIDs
        self.unknownOwners = unknownOwners
        self.finishedButHeld = finishedButHeld
        self.neverFinished = neverFinished
        self.canNeverFinish = canNeverFinish
    }
}

/// A strongly connected group of strong references.
public struct Cycle: Sendable, Hashable, Codable {
    /// Member ids, ascending.
    public var objects: [UInt64]
    /// True when nothing outside the group holds any member (every member's retain count is
    /// explained by strong edges from inside the group, or from other leaked objects).
    public var leaked: Bool
    /// Address-free identity for grouping the same leak across runs: the canonical loop's type
    /// names and labels, with `(+N)` when the group has more members than the loop.
    public var signature: String
    /// One loop through the group in canonical rotation (starting at the member whose type name
    /// sorts first).
    public var path: [PathStep]
    /// The loop as text: `Parent —child→ Child —parent→ Parent`.
    public var loopDescription: String
    /// For a retained cycle: members with holders the group does not explain, and how many.
    public var unexplainedHolders: [Holder]
    /// For a leaked cycle in code the user cannot change, the ``KnownLeak`` it matches
    /// (`XCTest: …`): shown apart, never a failure. Nil for the user's own leaks.
    public var libraryLeak: String? = nil

    /// One step of a loop.
    public struct PathStep: Sendable, Hashable, Codable {
        /// The owner's id.
        public var from: UInt64
        /// The target's id.
        public var to: UInt64
        /// The edge's label.
        public var label: String

        /// Creates a step.
        public init(from: UInt64, to: UInt64, label: String) {
            self.from = from
            self.to = to
            self.label = label
        }
    }

    /// A member held from outside its cycle.
    public struct Holder: Sendable, Hashable, Codable {
        /// The member's id.
        public var object: UInt64
        /// References the graph does not explain (its retain count minus known in-edges).
        public var unexplained: Int
        /// Known strong edges into the member from outside the cycle.
        public var knownHolders: [UInt64]

        /// Creates a holder description.
        public init(object: UInt64, unexplained: Int, knownHolders: [UInt64]) {
            self.object = object
            self.unexplained = unexplained
            self.knownHolders = knownHolders
        }
    }

    /// Creates a cycle description.
    public init(
        objects: [UInt64], leaked: Bool, signature: String, path: [PathStep], loopDescription: String,
        unexplainedHolders: [Holder] = []
    ) {
        self.objects = objects
        self.leaked = leaked
        self.signature = signature
        self.path = path
        self.loopDescription = loopDescription
        self.unexplainedHolders = unexplainedHolders
    }
}

/// An object held by references the graph does not show.
public struct UnknownOwner: Sendable, Hashable, Codable {
    /// The object's id.
    public var object: UInt64
    /// Its retain count minus its known strong in-edges.
    public var unexplained: Int
    /// Whether it (or an object it reaches) held references LeakGraph could not read: one of its
    /// unexplained holders may be hidden there, closing a cycle the graph does not show.
    public var reachesUnreadMemory = false

    // `reachesUnreadMemory` is not coded: data coded before it existed still decodes.
    private enum CodingKeys: String, CodingKey {
        case object, unexplained
    }

    /// Creates a description.
    public init(object: UInt64, unexplained: Int) {
        self.object = object
        self.unexplained = unexplained
    }
}
