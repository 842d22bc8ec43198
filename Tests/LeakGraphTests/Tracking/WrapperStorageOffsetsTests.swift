import LeakGraph
import Testing

@testable import LeakGraph

/// Wrapped properties reached by their remembered offsets: owners whose wrappers sit at different
/// offsets (generic over a payload laid out before them, and a subclass's), each keeping its own
/// value, label and edge assignment after assignment.
@Suite("Wrapper storage offsets", .isolated)
struct WrapperStorageOffsetsTests {
    @Test("wrappers at different offsets keep their own targets, payloads, labels and edges")
    func differentOffsets() {
        let small = OffsetOwner<UInt8>(7)
        let large = OffsetOwner<(Int, Int, Int, Int)>((1, 2, 3, 4))
        let derived = DerivedOwner()
        let leaves = (0..<4).map { _ in OffsetLeaf() }
        // The first assignment reaches each wrapper through its key path, every later one (and
        // every read) by the offset remembered for that key path.
        for round in 0..<40 {
            small.strong = leaves[round % 4]
            large.strong = leaves[(round + 1) % 4]
            small.weak = leaves[(round + 2) % 4]
            large.weak = leaves[(round + 3) % 4]
            derived.inherited = leaves[round % 4]
            derived.own = leaves[(round + 1) % 4]
            #expect(small.strong === leaves[round % 4] && large.strong === leaves[(round + 1) % 4])
            #expect(small.weak === leaves[(round + 2) % 4] && large.weak === leaves[(round + 3) % 4])
            #expect(derived.inherited === leaves[round % 4] && derived.own === leaves[(round + 1) % 4])
        }
        #expect(small.payload == 7)
        #expect(large.payload == (1, 2, 3, 4))
        #expect(derived.padding == (5, 6, 7))

        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        let ids = snapshot.mine.reduce(into: [:]) { $0[$1.id] = $1.type }
        let edges = snapshot.edges.filter { ids[$0.from] != nil }
            .map { "\(ids[$0.from]!.prefix { $0 != "<" }).\($0.label) \($0.kind)" }.sorted()
        #expect(
            edges == [
                "DerivedOwner.inherited strong", "DerivedOwner.own strong", "OffsetOwner.strong strong",
                "OffsetOwner.strong strong", "OffsetOwner.weak weak", "OffsetOwner.weak weak",
            ])
        // Each edge goes to the leaf assigned last: round 39.
        let leafIDs = Set(snapshot.mine.filter { $0.type.hasSuffix("OffsetLeaf") }.map(\.id))
        #expect(snapshot.edges.filter { ids[$0.from] != nil }.allSatisfy { leafIDs.contains($0.to) })
        #expect(snapshot.edges.filter { ids[$0.from] != nil && $0.count != 1 }.isEmpty)
    }

    @Test("a weak wrapper read by its offset sees its target's death")
    func weakTargetDies() {
        let owner = OffsetOwner<UInt8>(1)
        inScope {
            let leaf = OffsetLeaf()
            owner.weak = leaf
            owner.weak = leaf  // the second reaches the storage by its offset
            #expect(owner.weak === leaf)
        }
        #expect(owner.weak == nil)
    }

    @Test("a remembered offset belongs to its key path alone")
    func offsetsByKeyPath() {
        let first = \OffsetOwner<UInt8>.payload as AnyKeyPath
        let second = \OffsetOwner<(Int, Int)>.payload as AnyKeyPath
        WrapperStorageOffsets.remember(24, for: first)
        #expect(WrapperStorageOffsets.offset(of: first) == 24)
        #expect(WrapperStorageOffsets.offset(of: second) == nil)
        WrapperStorageOffsets.remember(40, for: second)
        #expect(WrapperStorageOffsets.offset(of: second) == 40)
    }
}

private final class OffsetLeaf: TrackedObject {}

private final class OffsetOwner<Payload>: TrackedObject {
    var payload: Payload
    @StrongRef var strong: OffsetLeaf?
    @WeakRef var weak: OffsetLeaf?

    init(_ payload: Payload) {
        self.payload = payload
        super.init()
    }
}

private class BaseOwner: TrackedObject {
    var padding = (5, 6, 7)
    @StrongRef var inherited: OffsetLeaf?
}

private final class DerivedOwner: BaseOwner {
    @StrongRef var own: OffsetLeaf?
}
