import LeakGraph
import Testing

// The errors below are `@unchecked Sendable` (`Error` requires `Sendable`): each is made and read
// by one test's thread only.

/// An error that holds an object (a struct: stored in its box).
private struct LeafFailure: Error, @unchecked Sendable {
    let leaf: Leaf
}

/// An error that is a class (its box holds the reference).
private final class LeafFailureObject: Error, @unchecked Sendable {
    let leaf: Leaf
    init(leaf: Leaf) { self.leaf = leaf }
}

/// A protocol with a primary associated type, for constrained existentials.
private protocol Carries<Carried> {
    associatedtype Carried
    var carried: Carried { get }
}

private struct LeafCarrier: Carries {
    let carried: Leaf
}

private final class LeafCarrierObject: Carries {
    let carried: Leaf
    init(carried: Leaf) { self.carried = carried }
}

private protocol ObjectCarries<Carried>: AnyObject {
    associatedtype Carried
}

extension LeafCarrierObject: ObjectCarries {}

private final class ErrorHolder: TrackedObject {
    var failure: any Error = LeafFailure(leaf: Leaf())
    var lastFailure: (any Error)?
    var result: Result<Int, any Error> = .success(0)
    var carrier: any Carries<Leaf> = LeafCarrier(carried: Leaf())
    var maybeCarrier: (any Carries<Leaf>)?
    var objectCarrier: (any ObjectCarries<Leaf>)?
}

@Suite("Errors and constrained existentials", .serialized, .isolated)
struct ErrorAndConstrainedExistentialTests {
    /// Error boxes are read without Objective-C interop (with it a box may be an `NSError`).
    static let readsErrorBoxes: Bool = {
        #if _runtime(_ObjC)
            false
        #else
            true
        #endif
    }()

    @Test(
        "an `any Error` value is read through its box: a struct error, an optional error, a class error in a Result",
        .enabled(if: readsErrorBoxes))
    func errorValuesAreRead() {
        expectLeavesRead(what: "an error") { holder, leaves in
            holder.failure = LeafFailure(leaf: leaves[0])
            holder.lastFailure = LeafFailure(leaf: leaves[1])
            holder.result = .failure(LeafFailureObject(leaf: leaves[2]))
        }
    }

    @Test("a constrained existential (`any P<T>`) is read as its container: opaque, optional and class-bound")
    func constrainedExistentialsAreRead() {
        expectLeavesRead(what: "a constrained existential") { holder, leaves in
            holder.carrier = LeafCarrier(carried: leaves[0])
            holder.maybeCarrier = LeafCarrier(carried: leaves[1])
            holder.objectCarrier = LeafCarrierObject(carried: leaves[2])
        }
    }

    /// Three leaves given to a holder by `fill` are each reached from it, and nothing of the holder
    /// is said unread.
    private func expectLeavesRead(what: String, _ fill: (ErrorHolder, [Leaf]) -> Void) {
        let checkpoint = LeakGraph.checkpoint()
        let leaves = (0..<3).map { _ in Leaf(label: "held") }
        let holder = ErrorHolder()
        fill(holder, leaves)
        let snapshot = LeakGraph.snapshot()
        let reached = reachedLeaves(from: holder, snapshot: snapshot, checkpoint: checkpoint)
        let ids = heldLeafIDs(snapshot: snapshot, checkpoint: checkpoint)
        #expect(ids.count == 3)
        #expect(ids.isSubset(of: reached), "every leaf \(what) holds is reached from the holder")
        #expect(unread(snapshot: snapshot, checkpoint: checkpoint).isEmpty, "nothing of the holder is said unread")
        withExtendedLifetime((holder, leaves)) {}
    }

    @Test("a cycle closed through an error's box is leaked", .enabled(if: readsErrorBoxes))
    func cycleThroughAnErrorIsLeaked() {
        let checkpoint = LeakGraph.checkpoint()
        makeErrorCycle()
        let snapshot = LeakGraph.snapshot()
        let holderID = snapshot.objects(since: checkpoint).mine.first { $0.type == "ErrorHolder" }?.id
        let report = LeakDetector.analyze(snapshot)
        let cycle = snapshot.myCycles(report).first { $0.objects.contains { $0 == holderID } }
        #expect(cycle?.leaked == true)
        #expect(cycle?.path.contains { $0.label.hasPrefix("lastFailure") } == true)
    }

    /// The ids of the leaves a test made to be held (the holder's default values make others).
    private func heldLeafIDs(snapshot: GraphSnapshot, checkpoint: Checkpoint) -> Set<UInt64> {
        Set(snapshot.objects(since: checkpoint).mine.filter { $0.type == "Leaf" && $0.label == "held" }.map(\.id))
    }

    /// Every object reached from `holder` by strong edges (through storage nodes too).
    private func reachedLeaves(from holder: AnyObject, snapshot: GraphSnapshot, checkpoint: Checkpoint) -> Set<UInt64> {
        let holderID = snapshot.objects(since: checkpoint).mine.first { $0.type == "ErrorHolder" }!.id
        var reached: Set<UInt64> = [holderID]
        var work = [holderID]
        while let next = work.popLast() {
            for edge in snapshot.edges where edge.from == next && edge.kind == .strong {
                if reached.insert(edge.to).inserted { work.append(edge.to) }
            }
        }
        return reached
    }

    /// What the test's own holder has said unread.
    private func unread(snapshot: GraphSnapshot, checkpoint: Checkpoint) -> [UnreadReferenceInfo] {
        let ids = Set(snapshot.objects(since: checkpoint).mine.filter { $0.type == "ErrorHolder" }.map(\.id))
        return snapshot.unreadReferences.filter { ids.contains($0.object) }
    }
}

@inline(never)
private func makeErrorCycle() {
    let holder = ErrorHolder()
    let leaf = Leaf()
    holder.failure = LeafFailure(leaf: leaf)
    holder.lastFailure = HolderFailure(holder: holder)
}

private struct HolderFailure: Error, @unchecked Sendable {
    let holder: ErrorHolder
}
