extension LeakGraph {
    /// Takes a snapshot, analyses it and confirms every *leaked* verdict against a second
    /// snapshot, for use while other threads may be changing the graph.
    ///
    /// A snapshot copies the declared edges at one instant but reads retain counts a moment
    /// later; if a thread drops a reference in between, a live object can look explained by an
    /// edge that no longer exists. A real leak cannot change (nothing can reach it), so a verdict
    /// is kept only when the second snapshot gives the same verdict with the same retain counts
    /// and in-edges for every member. Unconfirmed cycles are reported as retained.
    ///
    /// Cost: one snapshot when nothing leaked, two otherwise.
    public static func findLeaks(options: SnapshotOptions = .default) -> (snapshot: GraphSnapshot, report: LeakReport) {
        let first = snapshot(options: options)
        let firstReport = LeakDetector.analyze(first)
        guard firstReport.hasLeaks else { return (first, firstReport) }
        let second = snapshot(options: options)
        let secondReport = LeakDetector.analyze(second)
        var confirmed = firstReport.leakedObjectIDs.intersection(secondReport.leakedObjectIDs)
        let before = Fingerprints(first, ids: confirmed)
        let after = Fingerprints(second, ids: confirmed)
        confirmed = confirmed.filter { before.values[$0] == after.values[$0] }
        var report = secondReport
        report.leakedObjectIDs = secondReport.leakedObjectIDs.intersection(confirmed)
        for index in report.cycles.indices where report.cycles[index].leaked {
            if !report.cycles[index].objects.allSatisfy(confirmed.contains) {
                report.cycles[index].leaked = false
                report.leakedObjectIDs.subtract(report.cycles[index].objects)
            }
        }
        return (second, report)
    }
}

/// Per object: retain count and sorted strong in-edges, to compare two snapshots.
private struct Fingerprints {
    var values: [UInt64: String] = [:]

    init(_ snapshot: GraphSnapshot, ids: Set<UInt64>) {
        var incoming: [UInt64: [String]] = [:]
        for edge in snapshot.edges where edge.kind == .strong && ids.contains(edge.to) {
            incoming[edge.to, default: []].append("\(edge.from)|\(edge.label)|\(edge.count)")
        }
        for id in ids {
            let count = snapshot.object(id)?.strongRetainCount.map(String.init) ?? "gone"
            values[id] = count + ";" + (incoming[id] ?? []).sorted().joined(separator: ",")
        }
    }
}
