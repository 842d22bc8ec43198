/// What a walked snapshot still has to do once its objects are no longer held: decide which
/// compared words own their targets (``CandidateResolution``, which may ask ``OutsideHolders``),
/// leave out the objects only LeakGraph's holds kept alive, and assemble the ``GraphSnapshot``.
///
/// Done after the holds are let go when a suspended task's frames may be credited: asking
/// whether a global or a stack holds an object reads no object of the snapshot, and a hold is a
/// retain, which for that long made another thread's `withoutActuallyEscaping` see its closure
/// as escaped.
struct PendingSnapshot {
    var objects: [ObjectInfo]
    var edges: [EdgeInfo]
    var stacks: [StackInfo]
    let time: Double
    /// Read under the holds, less LeakGraph's own.
    var retainCounts: [Int]
    var candidates: [CandidateReference]
    var regions: [UntypedRegion]
    var unreadReferences: [UnreadReferenceInfo]
    var discoveryLimits: [String]
    /// Whether the snapshot held its objects (and so read counts that discovered edges reconcile
    /// with).
    let reconciles: Bool
    let heldFromOutside: (([Int], [UInt], Bool) -> OutsideHolders.Found)?

    /// The finished snapshot.
    consuming func finished() -> GraphSnapshot {
        if reconciles {
            Snapshotter.reconcile(&edges, objects: objects, retainCounts: retainCounts)
            if !candidates.isEmpty || !regions.isEmpty {
                let unsettled = CandidateResolution.resolve(
                    candidates, regions: regions, edges: &edges, objects: objects, retainCounts: retainCounts,
                    heldFromOutside: heldFromOutside)
                unreadReferences = CandidateResolution.adding(unsettled, to: unreadReferences)
            }
        }
        // An object whose every strong reference is a snapshot's hold is already unreachable:
        // it is freed as soon as that snapshot lets go, so it is not reported as alive.
        let onlyHeldByLeakGraph = Set(objects.indices.filter { retainCounts[$0] == 0 }.map { objects[$0].id })
        if !onlyHeldByLeakGraph.isEmpty {
            objects.removeAll { onlyHeldByLeakGraph.contains($0.id) }
            edges.removeAll { onlyHeldByLeakGraph.contains($0.from) || onlyHeldByLeakGraph.contains($0.to) }
            unreadReferences.removeAll { onlyHeldByLeakGraph.contains($0.object) }
        }
        var snapshot = GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: time)
        snapshot.discoveryLimits = discoveryLimits
        snapshot.unreadReferences = unreadReferences
        return snapshot
    }
}
