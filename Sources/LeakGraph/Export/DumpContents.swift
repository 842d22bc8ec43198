import CLeakGraphSupport

/// What a dump written by ``LeakGraph/writeDump(to:name:renderSVG:contents:)`` or at exit
/// holds. Chosen with `LEAKGRAPH_DUMP` (`cycles`, the default, or `full`).
///
/// A process of a million live objects with a few leaks needs a dump of the few, not of the
/// million: by default a dump holds every cycle, leaked or retained, with its members, everything
/// the leaked ones keep alive, the known outside holders of retained cycles, and objects that
/// finished but are still held — plus a summary of every live object counted by type.
///
/// ```sh
/// LEAKGRAPH_DUMP=full LEAKGRAPH_DUMP_DIR=leak-dumps swift run MyApp   # every live object
/// ```
public enum DumpContents: String, Sendable, CaseIterable {
    /// Cycles and what they hold, with a summary counted by type (the default).
    case cycles
    /// Every live object and edge.
    case full

    /// The contents `LEAKGRAPH_DUMP` asks for: `full`, or `cycles` when unset or empty. Any other
    /// value is reported on stderr and read as `cycles`.
    public static var fromEnvironment: DumpContents {
        guard let text = ProcessInfoLite.value(of: "LEAKGRAPH_DUMP"), !text.isEmpty else { return .cycles }
        guard let contents = DumpContents(rawValue: text.lowercased()) else {
            warn("LEAKGRAPH_DUMP=\(text) is not one of cycles, full: writing cycles")
            return .cycles
        }
        return contents
    }
}

/// The summary a dump starts with: how much was alive, how much was written, and every live
/// object counted by type (most numerous first).
package struct DumpSummary {
    var contents: DumpContents
    var liveObjects: Int
    var liveEdges: Int
    package var writtenObjects: Int
    var writtenEdges: Int
    /// Every type with its live and leaked counts, most live first, then by name.
    var types: [(type: String, count: Int, leaked: Int)]
    /// Tracking was never on in the process (`LEAKGRAPH=off` and never `LeakGraph.isEnabled =
    /// true`, or the `LeakGraphDisabled` trait): an empty dump then means nothing was checked,
    /// not that nothing leaked, and readers must say so. (Turned off part-way, what was tracked
    /// stays tracked: that dump is real.)
    var trackingOff = !Configuration.shared.everEnabled.load(ordering: .relaxed)
    /// `all` when every Swift object of the process was recorded (`LEAKGRAPH_TRACK=all`),
    /// `objects` when only tracked objects (`TrackedObject`, `LeakGraph.track`) were.
    var tracking = ProcessTracking.isActive ? "all" : "objects"
    /// Objects recorded since the process started, alive or not: 0 means nothing was tracked, and
    /// an empty graph is then no evidence of no leaks.
    var recordedObjects = Int(lg_peek_object_id() - 1)
    /// Why `LEAKGRAPH_TRACK` asked for something that did not happen (`LEAKGRAPH_TRACK=yes
    /// ignored: …`), nil when nothing went wrong: readers refuse to call such a run clean.
    var trackingProblem = lg_process_tracking_problem().map { String(cString: $0) }
    /// Leaked objects that are the user's: all of them, less what only library leaks keep alive.
    var userLeakedObjects: Int

    package init(
        _ snapshot: GraphSnapshot, report: LeakReport, contents: DumpContents, writtenObjects: Int, writtenEdges: Int
    ) {
        self.contents = contents
        userLeakedObjects =
            report.cycles.contains { $0.libraryLeak != nil }
            ? KnownLeaks.userLeaks(of: report, in: snapshot).objects.count : report.leakedObjectIDs.count
        liveObjects = snapshot.objects.count
        liveEdges = snapshot.edges.count
        self.writtenObjects = writtenObjects
        self.writtenEdges = writtenEdges
        // Types repeat in runs and alternations (objects are made in groups): interned, most
        // are told apart without hashing.
        var typeNumbers = StringInterner()
        var counts: [(count: Int, leaked: Int)] = []
        // Leaked objects marked by position: a set lookup per object was a tenth of a second
        // for a million.
        let isLeaked =
            report.leakedObjectIDs.isEmpty
            ? [Bool](repeating: false, count: snapshot.objects.count)
            : NodeIndex(snapshot.objects).flags(of: report.leakedObjectIDs)
        for object in snapshot.objects.indices {
            let number = Int(typeNumbers.number(of: snapshot.objects[object].type))
            if number == counts.count { counts.append((0, 0)) }
            counts[number].count += 1
            if isLeaked[object] { counts[number].leaked += 1 }
        }
        var tallies: [(type: String, count: Int, leaked: Int)] = []
        for (number, type) in typeNumbers.strings.enumerated() {
            tallies.append((type, counts[number].count, counts[number].leaked))
        }
        types = tallies.sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
    }
}

extension GraphSnapshot {
    /// The ids of the stacks its objects and edges name.
    package var referencedStackIDs: Set<Int> {
        var ids = Set(objects.compactMap(\.stack))
        for edge in edges { if let site = edge.site { ids.insert(site) } }
        return ids
    }

    /// Drops the stacks no object or edge names (ids unchanged, still ascending).
    package mutating func keepOnlyReferencedStacks() {
        let referenced = referencedStackIDs
        if referenced.count < stacks.count { stacks.removeAll { !referenced.contains($0.id) } }
    }

    /// The part of this snapshot a ``DumpContents/cycles`` dump writes (see there), with the
    /// report's unknown owners cut to the objects written: every id the report names is in it.
    package func restrictedToCycles(of report: LeakReport) -> (snapshot: GraphSnapshot, report: LeakReport) {
        let (index, kept) = keptByCycles(of: report)
        func isKept(_ id: UInt64) -> Bool {
            let node = index.node(of: id)
            return node >= 0 && kept[node]
        }
        let owners = report.unknownOwners.filter { isKept($0.object) }
        var restricted = self
        if kept.contains(false) {
            restricted.objects = objects.indices.filter { kept[$0] }.map { objects[$0] }
            restricted.edges = edges.filter { isKept($0.from) && isKept($0.to) }
        }
        restricted.unreadReferences = unreadReferences.filter { isKept($0.object) }
        var restrictedReport = report
        restrictedReport.unknownOwners = owners
        restrictedReport.neverFinished = report.neverFinished.filter(isKept)
        return (restricted, restrictedReport)
    }

    /// The ids of the stacks ``restrictedToCycles(of:)`` keeps named (its objects' and edges'),
    /// without building that snapshot.
    package func stackIDsKeptByCycles(of report: LeakReport) -> Set<Int> {
        let (index, kept) = keptByCycles(of: report)
        var ids: Set<Int> = []
        for node in objects.indices where kept[node] { if let stack = objects[node].stack { ids.insert(stack) } }
        for edge in edges {
            guard let site = edge.site else { continue }
            let from = index.node(of: edge.from)
            let to = index.node(of: edge.to)
            if from >= 0, to >= 0, kept[from], kept[to] { ids.insert(site) }
        }
        return ids
    }

    /// Which objects a cycles dump keeps, a flag per object position.
    private func keptByCycles(of report: LeakReport) -> (index: NodeIndex, kept: [Bool]) {
        // A flag per object (objects are in id order, as the detector indexes them), not a set
        // of ids: a million leaked ids made set unions a tenth of the dump at exit.
        let index = NodeIndex(objects)
        var kept = [Bool](repeating: false, count: objects.count)
        func keep(_ id: UInt64) {
            let node = index.node(of: id)
            if node >= 0 { kept[node] = true }
        }
        for id in report.leakedObjectIDs { keep(id) }
        for cycle in report.cycles {
            for id in cycle.objects { keep(id) }
            for holder in cycle.unexplainedHolders { holder.knownHolders.forEach(keep) }
        }
        report.finishedButHeld.forEach(keep)
        // Subscriptions that can never finish are leaks of a kind: kept. Those that never
        // finished are most of a running program's subscriptions: listed only when written.
        report.canNeverFinish.forEach(keep)
        // Possible leaks are said in the reports: what they name is written, and so are the
        // objects held from outside that reach memory LeakGraph could not read.
        for leak in report.possibleLeaks {
            leak.object.map(keep)
            leak.unread.forEach { keep($0.object) }
        }
        for owner in report.unknownOwners where owner.reachesUnreadMemory { keep(owner.object) }
        // Objects in no cycle held by something the graph does not show are most of a program's
        // live objects (whatever a local or a global holds): counted in the summary, written
        // only when kept for one of the reasons above.
        return (index, kept)
    }
}
