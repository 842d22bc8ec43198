import Testing

@testable import LeakGraph

/// The fingerprints `findLeaks` compares: read straight from the registry, they must be what a
/// declared-only snapshot gives, object by object, or a leak could be confirmed (or refused)
/// on numbers the snapshot would not show.
@Suite("Declared fingerprints", .isolated)
struct DeclaredFingerprintsTests {
    /// The fingerprint of each of `ids` computed from a declared-only snapshot.
    private func fromSnapshot(_ ids: [UInt64]) -> [Fingerprint] {
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        return ids.map { id in
            var fingerprint = Fingerprint()
            if let object = snapshot.object(id) { fingerprint.markPresent(retainCount: object.strongRetainCount) }
            for edge in snapshot.edges where edge.to == id && edge.kind == .strong {
                fingerprint.add(from: edge.from, labelHash: edge.label.hashValue, count: edge.count)
            }
            return fingerprint
        }
    }

    @Test("cycles, outside holders, weak edges, untracked objects and dead ids read as the snapshot reads them")
    func matchesSnapshot() {
        let checkpoint = LeakGraph.checkpoint()
        let leakedParent = Parent()
        let leakedChild = Child()
        leakedParent.child = leakedChild
        leakedChild.parent = leakedParent
        let heldParent = Parent()
        heldParent.child = Child()
        heldParent.child?.weakParent = heldParent
        let untracked = PlainNode()
        LeakGraph.track(untracked)
        LeakGraph.addEdge(from: heldParent, to: untracked, label: "plain")
        LeakGraph.addEdge(from: leakedChild, to: untracked, label: "plain")
        var ids = LeakGraph.liveObjects(since: checkpoint, options: .declaredOnly).mine.map(\.id)
        // An id no live object has any more.
        inScope {
            let gone = Child()
            ids.append(LeakGraph.liveObjects(since: checkpoint, options: .declaredOnly).mine.map(\.id).max()!)
            _ = gone
        }
        ids.sort()
        let direct = Snapshotter.declaredFingerprints(Registry.shared, ids: ids)
        let expected = fromSnapshot(ids)
        #expect(direct == expected)
        #expect(direct.filter(\.present).count == ids.count - 1)
        #expect(direct.contains { $0.edgeCount == 2 })  // the untracked object, held twice
        withExtendedLifetime((leakedParent, heldParent, untracked)) {}
        leakedParent.child = nil
    }

    @Test("a fingerprint is 16 bytes and tells absent, an unknown retain count and each count apart")
    func compactAndExact() {
        // Both looks keep one per leaked object: a million of them at a dump's peak.
        #expect(MemoryLayout<Fingerprint>.stride == 16)
        var unknown = Fingerprint()
        unknown.markPresent(retainCount: nil)
        var zero = Fingerprint()
        zero.markPresent(retainCount: 0)
        var two = Fingerprint()
        two.markPresent(retainCount: 2)
        var twoHeld = two
        twoHeld.add(from: 7, labelHash: 1, count: 1)
        let all = [Fingerprint(), unknown, zero, two, twoHeld]
        for (i, a) in all.enumerated() {
            for (j, b) in all.enumerated() { #expect((a == b) == (i == j), "\(i) \(j)") }
        }
        #expect(!Fingerprint().present && unknown.present && zero.present)
    }
}
