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
        guard let text = ProcessInfoLite.environment["LEAKGRAPH_DUMP"], !text.isEmpty else { return .cycles }
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

    package init(
        _ snapshot: GraphSnapshot, report: LeakReport, contents: DumpContents, writtenObjects: Int, writtenEdges: Int
    ) {
        self.contents = contents
        liveObjects = snapshot.objects.count
        liveEdges = snapshot.edges.count
        self.writtenObjects = writtenObjects
        self.writtenEdges = writtenEdges
        var counts: [String: (count: Int, leaked: Int)] = [:]
        for index in snapshot.objects.indices {
            let leaked = report.leakedObjectIDs.contains(snapshot.objects[index].id) ? 1 : 0
            counts[snapshot.objects[index].type, default: (0, 0)].count += 1
            counts[snapshot.objects[index].type, default: (0, 0)].leaked += leaked
        }
        types = counts.map { ($0.key, $0.value.count, $0.value.leaked) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
    }
}

extension GraphSnapshot {
    /// The part of this snapshot a ``DumpContents/cycles`` dump writes (see there), with the
    /// report's unknown owners cut to the objects written: every id the report names is in it.
    package func restrictedToCycles(of report: LeakReport) -> (snapshot: GraphSnapshot, report: LeakReport) {
        var kept = report.leakedObjectIDs
        for cycle in report.cycles {
            kept.formUnion(cycle.objects)
            for holder in cycle.unexplainedHolders { kept.formUnion(holder.knownHolders) }
        }
        kept.formUnion(report.finishedButHeld)
        // Objects in no cycle held by something the graph does not show are most of a program's
        // live objects (whatever a local or a global holds): counted in the summary, written
        // only when kept for one of the reasons above.
        let owners = report.unknownOwners.filter { kept.contains($0.object) }
        var restricted = self
        restricted.objects = objects.filter { kept.contains($0.id) }
        restricted.edges = edges.filter { kept.contains($0.from) && kept.contains($0.to) }
        var restrictedReport = report
        restrictedReport.unknownOwners = owners
        return (restricted, restrictedReport)
    }
}
