import LeakGraph
import Testing

final class Leaf: TrackedObject {}

struct Inner {
    var observer: Leaf?
    weak var weakObserver: Leaf?
}

enum Slot {
    case empty
    case full(Leaf)
}

class BaseHolder: TrackedObject {
    var inherited: Leaf?
}

final class Holder: BaseHolder {
    var peer: Leaf?
    var items: [Leaf] = []
    var byName: [String: Leaf] = [:]
    var state = Inner()
    var pair: (Int, Leaf?) = (0, nil)
    var slot = Slot.empty
    var anything: Any?
    weak var weakPeer: Leaf?
    unowned(unsafe) var unsafePeer: Leaf
    var handler: (() -> Void)?

    init(_ unsafePeer: Leaf) {
        self.unsafePeer = unsafePeer
        super.init()
    }
}

final class UnownedHolder: TrackedObject {
    unowned let target: Leaf
    init(_ target: Leaf) {
        self.target = target
        super.init()
    }
}

@Suite("ReferenceDiscovery", .serialized, .isolated)
struct ReferenceDiscoveryTests {
    private func edges(from owner: AnyObject, in snapshot: GraphSnapshot, checkpoint: Checkpoint) -> [EdgeInfo] {
        let ownerID = snapshot.objects(since: checkpoint).mine.first { $0.type == String(describing: type(of: owner)) }!
            .id
        return snapshot.edges.filter { $0.from == ownerID }
    }

    @Test("stored references are found with their property paths through containers")
    func propertyPaths() {
        let checkpoint = LeakGraph.checkpoint()
        let leaves = (0..<9).map { _ in Leaf() }
        let holder = Holder(leaves[8])
        holder.inherited = leaves[0]
        holder.peer = leaves[1]
        holder.items = [leaves[2], leaves[3], leaves[4]]
        holder.byName = ["k": leaves[5]]
        holder.state.observer = leaves[6]
        holder.pair = (1, leaves[7])
        holder.slot = .full(leaves[0])
        holder.anything = leaves[1]
        let snapshot = LeakGraph.snapshot()
        let found = edges(from: holder, in: snapshot, checkpoint: checkpoint)
        let strongLabels = Set(found.filter { $0.kind == .strong }.map(\.label))
        #expect(
            strongLabels.isSuperset(of: [
                "inherited", "peer", "items[0]", "items[2]", "byName[\"k\"]", "state.observer", "pair.1", "slot.full",
                "anything",
            ]))
        #expect(found.allSatisfy { $0.origin == .reflected })
        withExtendedLifetime((holder, leaves)) {}
    }

    @Test("weak and unowned properties are never reported as strong; unowned(unsafe) is not read")
    func weakAndUnownedAreNotStrong() {
        let checkpoint = LeakGraph.checkpoint()
        let leaf = Leaf()
        let holder = Holder(leaf)
        holder.weakPeer = leaf
        holder.state.weakObserver = leaf
        let unownedHolder = UnownedHolder(leaf)
        let snapshot = LeakGraph.snapshot()
        let found = edges(from: holder, in: snapshot, checkpoint: checkpoint)
        #expect(!found.contains { $0.kind == .strong })
        // unowned(unsafe) storage is never read: its target may be dead and its address reused by
        // a new object, which would show as a phantom edge.
        #expect(!found.contains { $0.label == "unsafePeer" })
        let fromUnowned = edges(from: unownedHolder, in: snapshot, checkpoint: checkpoint)
        #expect(fromUnowned.map(\.kind) == [.unowned])
        withExtendedLifetime((holder, unownedHolder, leaf)) {}
    }

    @Test("a dead unowned target does not trap the snapshot")
    func deadUnownedTarget() {
        let checkpoint = LeakGraph.checkpoint()
        var holder: UnownedHolder?
        inScope {
            let leaf = Leaf()
            holder = UnownedHolder(leaf)
        }
        let snapshot = LeakGraph.snapshot()
        #expect(snapshot.objects(since: checkpoint).mine.map(\.type) == ["UnownedHolder"])
        withExtendedLifetime(holder) {}
    }

    @Test("a declared edge found again by reflection counts once")
    func declaredAndReflectedCountOnce() {
        makeLeakedPair()
        let snapshot = LeakGraph.snapshot()
        let mine = snapshot.myIDs
        let edges = snapshot.edges.filter { mine.contains($0.from) }
        #expect(edges.count == 2)
        #expect(edges.allSatisfy { $0.origin == .declared })
        let cycle = LeakDetector.analyze(snapshot).cycles.first { Set($0.objects) == mine }
        #expect(cycle?.leaked == true)
    }

    @Test("a closure capturing its owner shows as a leaked cycle through a capture edge")
    func closureCaptureCycle() {
        let checkpoint = LeakGraph.checkpoint()
        makeCapturingCycle()
        let snapshot = LeakGraph.snapshot()
        let mine = snapshot.objects(since: checkpoint).mine
        let report = LeakDetector.analyze(snapshot)
        let cycle = snapshot.myCycles(report).first
        #expect(cycle?.leaked == true)
        #expect(cycle?.path.contains { $0.label == "capture" } == true)
        let mineIDs = Set(mine.map(\.id))
        let capture = snapshot.edges.first { edge in edge.label == "capture" && mineIDs.contains(edge.from) }
        #expect(capture?.origin == .captured)
        #expect(capture?.closureAddress != nil)
    }

    @Test("a [weak self] capture makes no edge and nothing stays alive")
    func weakCapture() {
        let checkpoint = LeakGraph.checkpoint()
        inScope {
            let holder = Holder(Leaf())
            holder.handler = { [weak holder] in _ = holder }
        }
        #expect(eventually { LeakGraph.liveObjects(since: checkpoint).mine.isEmpty })
    }

    @Test("captures of several objects are all found")
    func severalCaptures() {
        let checkpoint = LeakGraph.checkpoint()
        let a = Leaf()
        let b = Leaf()
        let holder = Holder(Leaf())
        var counter = 0
        holder.handler = {
            counter += 1
            _ = (a, b)
        }
        let snapshot = LeakGraph.snapshot()
        let ids = snapshot.objects(since: checkpoint).mine.filter { $0.type == "Leaf" }.map(\.id).prefix(2)
        // With whole-process tracking the closure's context is a node of its own between them.
        let contexts = Set(snapshot.objects.filter(\.isRecordedProcessWide).map(\.id))
        let fromHolder = edges(from: holder, in: snapshot, checkpoint: checkpoint)
        let throughContext = snapshot.edges.filter { edge in
            fromHolder.contains { $0.to == edge.from && contexts.contains(edge.from) }
        }
        let captured = Set((fromHolder + throughContext).filter { $0.label == "capture" }.map(\.to))
        // The `var counter` box is captured too: recorded (a node) with whole-process tracking.
        let leaves = Set(snapshot.objects.filter { $0.type == "Leaf" }.map(\.id))
        #expect(captured.intersection(leaves) == Set(ids))
        if LeakGraph.isTrackingAllObjects {
            #expect(captured.subtracting(leaves).count == 1, "the context's edge to the box of `counter`")
        }
        withExtendedLifetime((a, b, holder)) {}
    }
}

@inline(never)
private func makeCapturingCycle() {
    let holder = Holder(Leaf())
    holder.handler = { _ = holder.peer }
}
