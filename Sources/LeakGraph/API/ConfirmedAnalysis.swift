#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LeakGraph {
    /// Takes a snapshot, analyses it and confirms every *leaked* verdict against a second
    /// snapshot, for use while other threads may be changing the graph.
    ///
    /// A snapshot copies the declared edges at one instant but reads retain counts a moment
    /// later; if a thread drops a reference in between, a live object can look explained by an
    /// edge that no longer exists. A real leak cannot change (nothing can reach it), so a verdict
    /// is kept only when a second, declared-only look finds the same retain count and the same
    /// declared in-edges for every member. Unconfirmed cycles are reported as retained.
    ///
    /// Cost: one snapshot when nothing leaked, plus a cheap declared-only one otherwise.
    public static func findLeaks(options: SnapshotOptions = .default) -> (snapshot: GraphSnapshot, report: LeakReport) {
        let first = snapshot(options: options)
        let firstReport = LeakDetector.analyze(first)
        guard firstReport.hasLeaks else { return (first, firstReport) }
        // The second look reads only what can have moved under a racing thread: retain counts
        // and declared edges (cheap: nothing is held, nothing is reflected).
        // Nodes that discovery added (shared storage, untracked objects) exist only in a full
        // snapshot: when a leak goes through one, the second look is a full one too, and every
        // strong in-edge is compared, not only declared ones.
        let throughDiscovered = firstReport.leakedObjectIDs.contains { $0 >= ObjectInfo.discoveredNodeIDBase }
        let before = Fingerprints(first, ids: firstReport.leakedObjectIDs, declaredOnly: !throughDiscovered)
        // Another thread's snapshot letting go of its holds at that very moment over-counts a
        // retain count for an instant: a real leak cannot change, so look again (a few times,
        // a millisecond apart) before calling a difference real.
        var confirmed = Set<UInt64>()
        for attempt in 0..<5 {
            if attempt > 0 { usleep(1_000) }
            let second = snapshot(options: throughDiscovered ? options : .declaredOnly)
            let after = Fingerprints(second, ids: firstReport.leakedObjectIDs, declaredOnly: !throughDiscovered)
            confirmed = firstReport.leakedObjectIDs.filter { before.values[$0] == after.values[$0] }
            if confirmed.count == firstReport.leakedObjectIDs.count { break }
        }
        var report = firstReport
        report.leakedObjectIDs = confirmed
        for index in report.cycles.indices where report.cycles[index].leaked {
            if !report.cycles[index].objects.allSatisfy(confirmed.contains) {
                report.cycles[index].leaked = false
                report.leakedObjectIDs.subtract(report.cycles[index].objects)
            }
        }
        return (first, report)
    }

    /// ``findLeaks(options:)`` with the snapshot's stacks and closures symbolicated: where every
    /// leak description starts (test failures, the process check, `expectDeallocation`, the
    /// dump at exit), before ``LeakTrace`` and the exporters turn it into text and pictures.
    package static func findLeaksToDescribe(options: SnapshotOptions = .default) -> (
        snapshot: GraphSnapshot, report: LeakReport
    ) {
        let found = findLeaks(options: options)
        return (Symbolicator.symbolicate(found.snapshot), found.report)
    }
}

/// Per object: retain count and its declared strong in-edges (as an order-independent hash),
/// to compare two snapshots.
private struct Fingerprints {
    struct Value: Equatable {
        var retainCount: Int?
        var edgeCount = 0
        var edgeHash: UInt64 = 0
    }

    var values: [UInt64: Value] = [:]

    init(_ snapshot: GraphSnapshot, ids: Set<UInt64>, declaredOnly: Bool) {
        values.reserveCapacity(ids.count)
        for object in snapshot.objects where ids.contains(object.id) {
            values[object.id] = Value(retainCount: object.strongRetainCount)
        }
        for edge in snapshot.edges
        where edge.kind == .strong && (edge.origin == .declared || !declaredOnly) && ids.contains(edge.to) {
            var hasher = Hasher()
            hasher.combine(edge.from)
            hasher.combine(edge.label)
            hasher.combine(edge.count)
            values[edge.to, default: Value()].edgeCount += 1
            values[edge.to, default: Value()].edgeHash &+= UInt64(bitPattern: Int64(hasher.finalize()))
        }
    }
}
