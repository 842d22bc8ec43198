import Testing

@testable import LeakGraph

/// What the description of a confirmed analysis keeps: a possible leak whose every reference the
/// graph does not show is a named global's (or stack's) is retained by it, not possibly leaked.
@Suite("Confirmed analysis")
struct ConfirmedAnalysisTests {
    /// A retained pair (1 ⇄ 2) held from outside through 1, with `names` naming 1's holders, and
    /// the possible leak the unread memory it reaches makes of it.
    private func possibleLeak(
        unexplained: Int, globals: [String], stacks: [String] = []
    ) -> (PossibleLeak, LeakReport, GraphSnapshot) {
        var service = ObjectInfo(id: 1, type: "Service")
        service.heldByGlobals = globals
        service.outsideHolders = stacks
        let snapshot = GraphSnapshot(objects: [service, ObjectInfo(id: 2, type: "Task")], edges: [])
        let cycle = Cycle(
            objects: [1, 2], leaked: false, signature: "Service —frames→ Task",
            path: [Cycle.PathStep(from: 1, to: 2, label: "task"), Cycle.PathStep(from: 2, to: 1, label: "frames")],
            loopDescription: "Service —task→ Task —frames→ Service",
            unexplainedHolders: [Cycle.Holder(object: 1, unexplained: unexplained, knownHolders: [])])
        var report = LeakReport(cycles: [cycle], leakedObjectIDs: [])
        let leak = PossibleLeak(cycle: 0, unexplained: unexplained, unread: [])
        report.possibleLeaks = [leak]
        return (leak, report, snapshot)
    }

    @Test("a possible leak held only by named globals is retained by them, not possibly leaked")
    func namedGlobalsHoldIt() {
        let (leak, report, snapshot) = possibleLeak(unexplained: 1, globals: ["static Service.shared (App)"])
        #expect(
            LeakGraph.isHeldByNamedHolders(leak, report: report, snapshot: snapshot, index: NodeIndex(snapshot.objects))
        )
    }

    @Test("a possible leak stays one while some reference it has is not a named global's (a stack word is no proof)")
    func unnamedReferenceKeepsItPossible() {
        let (none, noneReport, noneSnapshot) = possibleLeak(unexplained: 1, globals: [])
        #expect(
            !LeakGraph.isHeldByNamedHolders(
                none, report: noneReport, snapshot: noneSnapshot, index: NodeIndex(noneSnapshot.objects)))
        // A thread's stack is no proof: its word may be a stale copy.
        let (stacked, stackReport, stackSnapshot) = possibleLeak(unexplained: 1, globals: [], stacks: ["main"])
        #expect(
            !LeakGraph.isHeldByNamedHolders(
                stacked, report: stackReport, snapshot: stackSnapshot, index: NodeIndex(stackSnapshot.objects)))
        let (more, moreReport, moreSnapshot) = possibleLeak(unexplained: 2, globals: ["static Service.shared (App)"])
        #expect(
            !LeakGraph.isHeldByNamedHolders(
                more, report: moreReport, snapshot: moreSnapshot, index: NodeIndex(moreSnapshot.objects)))
    }
}
