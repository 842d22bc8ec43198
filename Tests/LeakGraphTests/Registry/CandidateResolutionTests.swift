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
    private func resolve(childFamily: Int, outside: OutsideHolders.Found = OutsideHolders.Found()) -> [EdgeInfo] {
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
            heldFromOutside: { _, _, _ in outside })
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

    /// A task (0) whose frames point at an object (1) exactly as often as its references nothing
    /// explains (two: an owned reference and a borrowed copy of it).
    private func resolveExactCount(outside: OutsideHolders.Found) -> (edges: [EdgeInfo], askedStacks: Bool) {
        let objects = [ObjectInfo(id: 10, type: TaskNode.typeName), ObjectInfo(id: 11, type: "Service")]
        let regions = [UntypedRegion(owner: 0, place: "frames", why: "task memory")]
        let candidates = [
            CandidateReference(from: 0, to: 1, label: "frames", region: 0, isTaskWord: true, family: 0),
            CandidateReference(from: 0, to: 1, label: "frames", region: 0, isTaskWord: true, family: 0),
        ]
        var edges: [EdgeInfo] = []
        var askedStacks = false
        _ = CandidateResolution.resolve(
            candidates, regions: regions, edges: &edges, objects: objects, retainCounts: [1, 2],
            heldFromOutside: { _, _, looksAtStacks in
                askedStacks = looksAtStacks
                return outside
            })
        return (edges, askedStacks)
    }

    @Test("frames as many as the references: a global holding the object keeps one of them (a singleton's run loop)")
    func exactCountLeavesOneToAGlobal() {
        let (edges, askedStacks) = resolveExactCount(
            outside: OutsideHolders.Found(references: [1: 1], heldByGlobals: [1]))
        #expect(edges.filter { $0.to == 11 && $0.kind.keepsAlive }.map(\.count) == [1], "\(edges)")
        #expect(!askedStacks)
    }

    @Test("frames as many as the references: a stack's word (maybe a returned frame's) takes none of them")
    func exactCountIgnoresStacks() {
        let (edges, _) = resolveExactCount(outside: OutsideHolders.Found(references: [1: 1], heldByGlobals: []))
        #expect(edges.filter { $0.to == 11 && $0.kind.keepsAlive }.map(\.count) == [2], "\(edges)")
    }

    @Test("frames outnumbering the references: a stack holding the object keeps one of them")
    func outnumberedLeavesOneToAStack() {
        let edges = resolve(childFamily: 0, outside: OutsideHolders.Found(references: [2: 1], heldByGlobals: []))
        #expect(edges.filter { $0.to == 12 && $0.kind.keepsAlive }.map(\.count) == [1], "\(edges)")
    }
}
