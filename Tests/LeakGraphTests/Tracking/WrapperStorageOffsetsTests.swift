import Synchronization
import Testing

@testable import LeakGraph

/// Wrapped properties reached by the offsets remembered for their key paths (non-generic owners
/// whose wrappers sit at different offsets, a subclass's inherited one), and through their key
/// paths (a generic owner, whose key path is a new object at every access): each keeps its own
/// target, label and edge, assignment after assignment.
@Suite("Wrapper storage offsets", .isolated)
struct WrapperStorageOffsetsTests {
    @Test("wrappers at different offsets keep their own targets, payloads, labels and edges")
    func differentOffsets() {
        let narrow = NarrowOwner()
        let wide = WideOwner()
        let derived = DerivedOwner()
        let leaves = (0..<4).map { _ in OffsetLeaf() }
        #if DEBUG
            let answeredBefore = WrapperStorageOffsets.answered.load(ordering: .relaxed)
            let forgottenBefore = WrapperStorageOffsets.forgotten.load(ordering: .relaxed)
        #endif
        // The first access reaches each wrapper through its key path; every later one by the
        // offset remembered for that key path.
        for round in 0..<40 {
            narrow.strong = leaves[round % 4]
            wide.strong = leaves[(round + 1) % 4]
            narrow.weak = leaves[(round + 2) % 4]
            wide.weak = leaves[(round + 3) % 4]
            derived.inherited = leaves[round % 4]
            derived.own = leaves[(round + 1) % 4]
            #expect(narrow.strong === leaves[round % 4] && wide.strong === leaves[(round + 1) % 4])
            #expect(narrow.weak === leaves[(round + 2) % 4] && wide.weak === leaves[(round + 3) % 4])
            #expect(derived.inherited === leaves[round % 4] && derived.own === leaves[(round + 1) % 4])
        }
        #if DEBUG
            // 6 assignments and 6 reads a round, all but the first of each wrapper's from the
            // table (other tests running meanwhile only add to the count). Three key paths in one
            // set of two places (about one run in a thousand) take turns forgetting each other:
            // only then may answers be missing.
            let answers = WrapperStorageOffsets.answered.load(ordering: .relaxed) - answeredBefore
            let forgotten = WrapperStorageOffsets.forgotten.load(ordering: .relaxed) - forgottenBefore
            #expect(answers >= 12 * 40 - 12 || forgotten >= 40, "\(answers) answers, \(forgotten) forgotten")
        #endif
        #expect(narrow.payload == 7)
        #expect(wide.payload == (1, 2, 3, 4))
        #expect(derived.padding == (5, 6, 7))
        #expect(!WrapperStorageOffsets.isReachedByKeyPath(NarrowOwner.self))
        #expect(edgesAreOnePerWrapper())
    }

    @Test("a generic owner's wrappers are reached through their key paths, and stay right")
    func genericOwner() {
        let small = GenericOwner<UInt8>(9)
        let large = GenericOwner<(Int, Int, Int)>((1, 2, 3))
        let leaves = (0..<4).map { _ in OffsetLeaf() }
        for round in 0..<20 {
            small.strong = leaves[round % 4]
            large.strong = leaves[(round + 1) % 4]
            #expect(small.strong === leaves[round % 4] && large.strong === leaves[(round + 1) % 4])
        }
        #expect(small.payload == 9 && large.payload == (1, 2, 3))
        // A new key path object at each access: the class is marked instead of filling the table.
        #expect(WrapperStorageOffsets.isReachedByKeyPath(GenericOwner<UInt8>.self))
        #expect(WrapperStorageOffsets.isReachedByKeyPath(GenericOwner<(Int, Int, Int)>.self))
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        let ownerIDs = Set(snapshot.mine.filter { $0.type.hasPrefix("GenericOwner") }.map(\.id))
        #expect(snapshot.edges.filter { ownerIDs.contains($0.from) }.map(\.label) == ["strong", "strong"])
    }

    @Test("a weak wrapper read by its offset sees its target's death")
    func weakTargetDies() {
        let owner = NarrowOwner()
        inScope {
            let leaf = OffsetLeaf()
            owner.weak = leaf
            owner.weak = leaf  // the second reaches the storage by its offset
            #expect(owner.weak === leaf)
        }
        #expect(owner.weak == nil)
    }

    /// Whether each owner has one edge per wrapper, of its kind, counted once, to a leaf.
    private func edgesAreOnePerWrapper() -> Bool {
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        let types = Dictionary(uniqueKeysWithValues: snapshot.mine.map { ($0.id, $0.type) })
        let leafIDs = Set(snapshot.mine.filter { $0.type == "OffsetLeaf" }.map(\.id))
        let edges = snapshot.edges.filter { types[$0.from]?.hasSuffix("Owner") == true }
        let described = edges.map { "\(types[$0.from]!).\($0.label) \($0.kind)" }.sorted()
        return described == [
            "DerivedOwner.inherited strong", "DerivedOwner.own strong", "NarrowOwner.strong strong",
            "NarrowOwner.weak weak", "WideOwner.strong strong", "WideOwner.weak weak",
        ] && edges.allSatisfy { leafIDs.contains($0.to) && $0.count == 1 }
    }
}

private final class OffsetLeaf: TrackedObject {}

/// The wrappers right after a byte of payload.
private final class NarrowOwner: TrackedObject {
    var payload: UInt8 = 7
    @StrongRef var strong: OffsetLeaf?
    @WeakRef var weak: OffsetLeaf?
}

/// The wrappers after four words of payload: other offsets than `NarrowOwner`'s.
private final class WideOwner: TrackedObject {
    var payload = (1, 2, 3, 4)
    @WeakRef var weak: OffsetLeaf?
    @StrongRef var strong: OffsetLeaf?
}

private class BaseOwner: TrackedObject {
    var padding = (5, 6, 7)
    @StrongRef var inherited: OffsetLeaf?
}

private final class DerivedOwner: BaseOwner {
    @StrongRef var own: OffsetLeaf?
}

private final class GenericOwner<Payload>: TrackedObject {
    var payload: Payload
    @StrongRef var strong: OffsetLeaf?

    init(_ payload: Payload) {
        self.payload = payload
        super.init()
    }
}
