import LeakGraph

/// The edge whose removal frees a cycle, the usual fix and the one-sentence verdict: the same
/// choice and wording as the failure messages of LeakGraphTesting (``LeakTrace/fix(for:in:)``,
/// ``LeakTrace/verdict(for:in:keptAlive:)``), shaped for reports.
///
/// Each cycle is judged on a picture of its own (its members, its loop's edges, their stacks), so
/// describing every cycle of a dump stays linear in its size.
enum LeakHint {
    static func choose(for cycle: Cycle, in snapshot: GraphSnapshot, edges: CycleEdges) -> LeakSummary.Hint? {
        let picture = picture(of: cycle, in: snapshot, edges: edges)
        guard let fix = LeakTrace.fix(for: cycle, in: picture) else { return nil }
        return LeakSummary.Hint(
            from: fix.step.from, to: fix.step.to, label: fix.step.label, edge: fix.edge, fix: fix.advice,
            opening: fix.remedy == .cut ? nil : fix.opening(in: picture))
    }

    static func verdict(for cycle: Cycle, in snapshot: GraphSnapshot, edges: CycleEdges, keptAlive: Int = 0)
        -> String
    {
        LeakTrace.verdict(for: cycle, in: picture(of: cycle, in: snapshot, edges: edges), keptAlive: keptAlive)
    }

    private static func picture(of cycle: Cycle, in snapshot: GraphSnapshot, edges: CycleEdges) -> GraphSnapshot {
        let objects = cycle.objects.sorted().compactMap { snapshot.object($0) }
        let loopEdges = cycle.path.compactMap { edges.edge(for: $0) }
        var stackIDs = Set(objects.compactMap(\.stack))
        stackIDs.formUnion(loopEdges.compactMap(\.site))
        let stacks = stackIDs.sorted().compactMap { snapshot.stack($0) }
        var picture = GraphSnapshot(objects: objects, edges: loopEdges, stacks: stacks, time: snapshot.time)
        picture.fieldDeclarations = snapshot.fieldDeclarations
        return picture
    }
}
