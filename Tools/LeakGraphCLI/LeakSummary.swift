import LeakGraph

/// What `leakgraph report` says about one dump, as plain data (rendered as text by
/// ``ReportText`` or as JSON with `--format json`).
package struct LeakSummary: Sendable, Hashable, Codable {
    /// The dump file.
    package var file: String
    /// The process that wrote it, when recorded.
    package var pid: Int32?
    /// Objects in the dump.
    package var objectCount: Int
    /// Edges in the dump.
    package var edgeCount: Int
    /// Live objects when the dump was written, when it holds only the cycles and what they hold
    /// (nil when it holds every live object, or does not say).
    package var liveObjectCount: Int? = nil
    /// Tracking was off in the process that wrote the dump: nothing was checked.
    package var trackingOff = false
    /// Why nothing was checked (tracking off, `LEAKGRAPH_TRACK` misspelt or unable to work, or no
    /// object recorded at all), nil when the dump is evidence.
    package var notChecked: String? = nil
    /// Objects the dump marks as leaked (members of leaked cycles and what only they hold).
    package var leakedObjectCount: Int
    /// Leaked cycles grouped by signature, most frequent first.
    package var leakedCycles: [CycleGroup]
    /// Cycles kept alive by something outside them.
    package var retainedCycles: [RetainedCycle]
    /// Objects in no cycle held by references the graph does not show.
    package var unknownOwners: [ObjectEntry]
    /// Objects that finished (disposed, completed, errored) but are still alive.
    package var finishedButHeld: [ObjectEntry]
    /// Active objects (subscriptions) nothing outside can ever send an event: they end only
    /// when disposed.
    package var canNeverFinish: [ObjectEntry] = []
    /// Active objects (subscriptions) something outside can still send events to.
    package var neverFinished: [ObjectEntry] = []
    /// Object count by type, largest first (at most `--top`); every live object's when the dump
    /// holds only cycles and records the counts.
    package var topTypes: [Tally]
    /// Object count by allocation site (the first user-code frame), largest first (at most `--top`).
    package var topSites: [Tally]
    /// With `--owners`: the objects that alone keep the most others alive (dominator tree),
    /// largest first (at most `--top`).
    package var topOwners: [Owner]? = nil

    /// One object that alone keeps others alive.
    package struct Owner: Sendable, Hashable, Codable {
        /// The object (`DisposeBag #12 «screen»`).
        package var object: String
        /// How many objects it alone keeps alive.
        package var keepsAlive: Int
        /// What those are, by type, most numerous first (`Sink ×12`).
        package var types: [String]
        /// Whether it is leaked.
        package var leaked: Bool
    }

    /// Leaked cycles in code the user cannot change (XCTest's test ⇄ run pairs, registered known
    /// leaks) and those `--ignore` or `--baseline` accept: shown apart, never a failure. Most
    /// frequent first.
    package var libraryLeaks: [LibraryLeakGroup] = []

    /// Library leaks of one kind and signature.
    package struct LibraryLeakGroup: Sendable, Hashable, Codable {
        /// `XCTest`, `--ignore`, `baseline`.
        package var library: String
        /// `XCTest: swift-corelibs-xctest keeps …`.
        package var reason: String
        /// The cycles' signature.
        package var signature: String
        /// The first cycle's loop.
        package var loop: String
        /// How many cycles.
        package var count: Int
    }

    /// Library leaks counted by library, most first: `[("XCTest", 1575)]`.
    package var libraryLeakCounts: [(library: String, count: Int)] {
        var counts: [String: Int] = [:]
        for group in libraryLeaks { counts[group.library, default: 0] += group.count }
        return counts.map { ($0.key, $0.value) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.library < $1.library
        }
    }

    /// Retained cycles that only references LeakGraph could not read may hold.
    package var possibleLeaks: [PossibleLeakEntry] = []

    /// Whether anything leaked.
    package var hasLeaks: Bool { leakedObjectCount > 0 || !leakedCycles.isEmpty }

    /// The exit status of `report` and `run` for this summary.
    package var exitStatus: ExitStatus {
        if hasLeaks { return .leaksFound }
        if trackingOff || notChecked != nil { return .notChecked }
        return possibleLeaks.isEmpty ? .clean : .possibleLeaks
    }

    /// A retained cycle only unread memory may hold.
    package struct PossibleLeakEntry: Sendable, Hashable, Codable {
        /// The loop.
        package var loop: String
        /// Member ids.
        package var objects: [UInt64]
        /// The references the graph does not show that hold its members.
        package var unexplained: Int
        /// The sentence the reports print.
        package var verdict: String
        /// Where LeakGraph could not read: `Type #id, place: why`.
        package var unread: [String]
    }

    /// Leaked cycles with the same signature.
    package struct CycleGroup: Sendable, Hashable, Codable {
        /// Address-free identity shared by the group.
        package var signature: String
        /// How many cycles have it.
        package var count: Int
        /// The first cycle's loop: `Child —parent→ Parent —child→ Child`.
        package var loop: String
        /// Members of the first cycle, loop order first.
        package var members: [ObjectEntry]
        /// Member ids of every cycle in the group.
        package var cycles: [[UInt64]]
        /// Which edge to remove and how, when one could be chosen.
        package var hint: Hint?
        /// The first cycle in one sentence: what leaked, what holds it, where to fix it.
        package var verdict: String?
        /// `Culprit: X #3 keeps 4 object(s) alive: …`: the member whose release frees the most
        /// of the first cycle's leak, and its victims by type.
        package var culprit: String? = nil
        /// Every place that made the group's cycles with its count, most first.
        package var sites: [CycleSites.Site] = []
    }

    /// A cycle that is alive because something outside holds it.
    package struct RetainedCycle: Sendable, Hashable, Codable {
        /// Address-free identity.
        package var signature: String
        /// The loop.
        package var loop: String
        /// Member ids.
        package var objects: [UInt64]
        /// Members held from outside the cycle.
        package var holders: [Holder]
        /// Which edge to remove once the outside holders let go, and how.
        package var hint: Hint?
        /// The cycle in one sentence.
        package var verdict: String?
        /// The known library leak its loop is (`XCTest: …`): no fix in the user's code, so no hint.
        package var library: String? = nil
    }

    /// A member of a retained cycle held from outside it.
    package struct Holder: Sendable, Hashable, Codable {
        /// The member.
        package var object: ObjectEntry
        /// References the graph does not explain.
        package var unexplained: Int
        /// Known objects outside the cycle holding it strongly.
        package var knownHolders: [ObjectEntry]
    }

    /// One object as reports name it.
    package struct ObjectEntry: Sendable, Hashable, Codable {
        /// Its id.
        package var id: UInt64
        /// Its type (`?` when the id is not in the dump).
        package var type: String
        /// Its label.
        package var label: String?
        /// Its lifecycle state, when it reported one.
        package var state: String?
        /// Unexplained references, for unknown owners.
        package var unexplained: Int?
        /// For unknown owners: whether it, or an object it reaches, held references LeakGraph
        /// could not read (one of its unexplained holders may be hidden there).
        package var reachesUnreadMemory: Bool? = nil
        /// The globals found holding it (`keptForever (App)`): some of its outside holders named.
        package var heldBy: [String]? = nil
        /// What its code named as holding it from outside the graph (a Dispatch timer, …).
        package var outsideHolders: [String]? = nil
        /// The first user-code frame of its allocation stack.
        package var site: String?
        /// Its whole allocation stack, innermost first.
        package var stack: [String]?

        /// `Type "label" #id`.
        package var displayName: String {
            if let label { return "\(type) \"\(label)\" #\(id)" }
            return "\(type) #\(id)"
        }
    }

    /// A count of objects under one name (a type or an allocation site).
    package struct Tally: Sendable, Hashable, Codable {
        /// The type or site.
        package var name: String
        /// Objects.
        package var count: Int
        /// Of which leaked.
        package var leaked: Int
    }

    /// The edge whose removal frees a cycle, and the usual fix.
    package struct Hint: Sendable, Hashable, Codable {
        /// The owner.
        package var from: UInt64
        /// The target.
        package var to: UInt64
        /// The edge's label.
        package var label: String
        /// The edge as text: `Child —parent→ Parent`.
        package var edge: String
        /// The usual fix.
        package var fix: String

        /// How the fix line starts (``LeakTrace/Fix/opening(in:)``): `cut <edge>` when nil (and
        /// in reports written before it was kept), `end NIOAsyncTestingChannel` for a
        /// dependency's own cycle.
        package var opening: String? = nil

        /// `Fix: cut <edge>: <fix>` (`Fix: end <object>: <fix>`): the same line as test failures
        /// and the demo.
        package var line: String { "Fix: \(opening ?? "cut \(edge)"): \(fix)" }
    }
}
