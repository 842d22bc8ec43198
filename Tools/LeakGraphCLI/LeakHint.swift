import LeakGraph

/// The edge whose removal frees a leaked cycle, and the usual fix: the same choice as the
/// failure messages of LeakGraphTesting (``LeakTrace/fix(for:in:)``), shaped for reports.
enum LeakHint {
    static func choose(for cycle: Cycle, in snapshot: GraphSnapshot, edges: CycleEdges) -> LeakSummary.Hint? {
        guard let fix = LeakTrace.fix(for: cycle, in: snapshot) else { return nil }
        return LeakSummary.Hint(
            from: fix.step.from, to: fix.step.to, label: fix.step.label, edge: fix.edge, fix: fix.advice)
    }
}
