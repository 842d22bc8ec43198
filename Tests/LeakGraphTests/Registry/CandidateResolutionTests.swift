import Testing

@testable import LeakGraph

/// Which compared words own their targets: a suspended task's frames, or one task family's (a
/// parent and the child tasks under it), are credited with an object's unexplained references;
/// words of unrelated tasks are not.
@Suite("Candidate resolution")
struct CandidateResolutionTests {
    /// A parent task (0), its child task (1) and an object (2) with two references nothing
    /// explains, each task's frames pointing at it (the parent twice: an owned reference and a
    /// borrowed copy).
    private func resolve(childFamily: Int) -> [EdgeInfo] {
        let objects = [
            ObjectInfo(id: 10, type: TaskNode.typeName), ObjectInfo(id: 11, type: TaskNode.typeName),
            ObjectInfo(id: 12, type: "Owner"),
        ]
        let regions = [
            UntypedRegion(owner: 0, place: "frames", why: "task memory"),
            UntypedRegion(owner: 1, place: "frames", why: "task memory"),
        ]
        let candidates = [
            CandidateReference(from: 0, to: 2, label: "frames", region: 0, isTaskWord: true, family: 0),
            CandidateReference(from: 0, to: 2, label: "frames", region: 0, isTaskWord: true, family: 0),
            CandidateReference(from: 1, to: 2, label: "frames", region: 1, isTaskWord: true, family: childFamily),
        ]
        var edges: [EdgeInfo] = []
        _ = CandidateResolution.resolve(
            candidates, regions: regions, edges: &edges, objects: objects, retainCounts: [1, 1, 2],
            heldFromOutside: { _, _ in [:] })
        return edges
    }

    @Test("a parent's and its child's frames are credited together with the object's references")
    func oneFamilyIsCredited() {
        let edges = resolve(childFamily: 0)
        #expect(edges.contains { $0.to == 12 && $0.kind == .unmanaged && $0.count == 2 }, "\(edges)")
    }

    @Test("two unrelated tasks' frames credit nothing: the references stay unexplained")
    func unrelatedTasksAreNotCredited() {
        let edges = resolve(childFamily: 1)
        #expect(!edges.contains { $0.to == 12 && $0.kind.keepsAlive }, "\(edges)")
        #expect(edges.contains { $0.to == 12 && $0.kind == .unknown })
    }
}
