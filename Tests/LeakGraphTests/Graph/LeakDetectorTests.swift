import LeakGraph
import LeakGraphTestSupport
import Testing

@Suite("LeakDetector")
struct LeakDetectorTests {
    @Test("a two-object cycle nothing else holds is leaked, with a canonical loop")
    func twoCycleLeaked() {
        let snapshot = GraphBuilder().object(1, "Sink").object(2, "SinkDisposer")
            .edge(1, 2, "cancel").edge(2, 1, "sink").build()
        let report = LeakDetector.analyze(snapshot)
        #expect(report.cycles.count == 1)
        let cycle = report.cycles[0]
        #expect(cycle.leaked)
        #expect(cycle.objects == [1, 2])
        #expect(cycle.loopDescription == "Sink —cancel→ SinkDisposer —sink→ Sink")
        #expect(cycle.signature == "Sink —cancel→ SinkDisposer —sink→ Sink")
        #expect(report.leakedObjectIDs == [1, 2])
    }

    @Test("the same cycle held from outside is retained and names the held member")
    func twoCycleRetained() {
        let snapshot = GraphBuilder().object(1, "Sink").object(2, "SinkDisposer", external: 1)
            .edge(1, 2, "cancel").edge(2, 1, "sink").build()
        let report = LeakDetector.analyze(snapshot)
        #expect(report.cycles.count == 1)
        #expect(!report.cycles[0].leaked)
        #expect(report.cycles[0].unexplainedHolders == [Cycle.Holder(object: 2, unexplained: 1, knownHolders: [])])
        #expect(report.leakedObjectIDs.isEmpty)
    }

    @Test("a self-loop is a cycle")
    func selfLoop() {
        let report = LeakDetector.analyze(GraphBuilder().object(1, "Node").edge(1, 1, "me").build())
        #expect(report.cycles.count == 1)
        #expect(report.cycles[0].leaked)
        #expect(report.cycles[0].loopDescription == "Node —me→ Node")
    }

    @Test("a three-cycle gives the whole loop starting at the type that sorts first")
    func threeCycle() {
        let snapshot = GraphBuilder().object(1, "C").object(2, "A").object(3, "B")
            .edge(1, 2, "c2a").edge(2, 3, "a2b").edge(3, 1, "b2c").build()
        let cycle = LeakDetector.analyze(snapshot).cycles[0]
        #expect(cycle.loopDescription == "A —a2b→ B —b2c→ C —c2a→ A")
        #expect(cycle.path.map(\.label) == ["a2b", "b2c", "c2a"])
    }

    @Test("a cycle through a weak or unowned edge is no cycle")
    func weakEdgeBreaksCycle() {
        for kind in [EdgeKind.weak, .unowned, .unknown] {
            let snapshot = GraphBuilder().object(1, "Parent", external: 1).object(2, "Child")
                .edge(1, 2, "child").edge(2, 1, "parent", kind: kind).build()
            #expect(LeakDetector.analyze(snapshot).cycles.isEmpty)
        }
    }

    @Test("objects held only by a leaked cycle are leaked too, and nested cycles are judged together")
    func garbagePropagates() {
        let snapshot = GraphBuilder()
            .object(1, "A").object(2, "B").object(3, "C").object(4, "D").object(5, "Leaf")
            .edge(1, 2, "x").edge(2, 1, "y")  // leaked cycle
            .edge(2, 3, "z").edge(3, 4, "u").edge(4, 3, "v")  // held only by the leaked one
            .edge(4, 5, "leaf")
            .build()
        let report = LeakDetector.analyze(snapshot)
        #expect(report.leakedObjectIDs == [1, 2, 3, 4, 5])
        #expect(report.cycles.count == 2)
        #expect(report.cycles.allSatisfy { $0.leaked })
    }

    @Test("an object with more retains than in-edges has unknown owners")
    func unknownOwners() {
        let snapshot = GraphBuilder().object(1, "Holder", external: 1).object(2, "Captured", external: 2)
            .edge(1, 2, "x").build()
        let report = LeakDetector.analyze(snapshot)
        #expect(report.unknownOwners.contains(UnknownOwner(object: 2, unexplained: 2)))
    }

    @Test("a reference counted twice explains two retains")
    func edgeCounts() {
        let snapshot = GraphBuilder().object(1, "A").object(2, "B")
            .edge(1, 2, "items", count: 2).edge(2, 1, "back").build()
        #expect(LeakDetector.analyze(snapshot).cycles[0].leaked)
    }

    @Test("detector agrees with brute-force reachability on seeded random graphs", arguments: 0..<60)
    func matchesBruteForce(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...60, using: &random)
        var external = [Int](repeating: 0, count: count + 1)
        for id in 1...count where Int.random(in: 0..<8, using: &random) == 0 {
            external[id] = Int.random(in: 1...2, using: &random)
        }
        var edges: [(Int, Int, EdgeKind)] = []
        for _ in 0..<Int.random(in: 0...(count * 2), using: &random) {
            let kind: EdgeKind = [.strong, .strong, .strong, .weak, .unowned].randomElement(using: &random)!
            edges.append((Int.random(in: 1...count, using: &random), Int.random(in: 1...count, using: &random), kind))
        }
        // What the runtime would have freed: objects with no holder at all, repeatedly.
        var alive = Set(1...count)
        var changed = true
        while changed {
            changed = false
            for id in alive
            where external[id] == 0 && !edges.contains(where: { $0.2 == .strong && $0.1 == id && alive.contains($0.0) })
            {
                alive.remove(id)
                changed = true
            }
        }
        var builder = GraphBuilder()
        for id in alive { builder = builder.object(UInt64(id), "T\(id % 4)", external: external[id]) }
        for (from, to, kind) in edges where alive.contains(from) && alive.contains(to) {
            builder = builder.edge(UInt64(from), UInt64(to), "e", kind: kind)
        }
        // Brute force: leaked = alive but unreachable over strong edges from outside holders.
        var reachable = Set<Int>()
        var work = alive.filter { external[$0] > 0 }
        while let node = work.popFirst() {
            guard reachable.insert(node).inserted else { continue }
            for edge in edges where edge.0 == node && edge.2 == .strong && alive.contains(edge.1) {
                work.insert(edge.1)
            }
        }
        let expected = Set(alive.subtracting(reachable).map(UInt64.init))
        #expect(LeakDetector.analyze(builder.build()).leakedObjectIDs == expected, "seed \(seed)")
    }

    @Test("thirty thousand cycles (described on two threads): each with its members, verdict, loop and holders")
    func manyCyclesDescribedInParallel() {
        // Leaked pairs, pairs held from outside, leaked triangles, in turn: enough cycles that
        // the later half is described on another thread.
        var objects: [ObjectInfo] = []
        var edges: [EdgeInfo] = []
        func object(_ id: UInt64, _ type: String, count: Int) {
            objects.append(
                ObjectInfo(
                    id: id, type: type, label: nil, strongRetainCount: count, stack: nil, time: 0,
                    state: .unspecified, scope: 0))
        }
        func edge(_ from: UInt64, _ to: UInt64, _ label: String) {
            edges.append(EdgeInfo(from: from, to: to, kind: .strong, label: label, origin: .declared))
        }
        let groups = 30_000
        for group in 0..<UInt64(groups) {
            let first = group * 3 + 1
            switch group % 3 {
            case 0, 1:
                object(first, "Sink", count: 1)
                object(first + 1, "SinkDisposer", count: group % 3 == 1 ? 2 : 1)
                edge(first, first + 1, "cancel")
                edge(first + 1, first, "sink")
            default:
                object(first, "A", count: 1)
                object(first + 1, "B", count: 1)
                object(first + 2, "C", count: 1)
                edge(first, first + 1, "b")
                edge(first + 1, first + 2, "c")
                edge(first + 2, first, "a")
            }
        }
        let report = LeakDetector.analyze(GraphSnapshot(objects: objects, edges: edges))
        #expect(report.cycles.count == groups)
        var seen = Set<UInt64>()
        for cycle in report.cycles {
            guard let first = cycle.objects.first else { continue }
            let group = (first - 1) / 3
            seen.insert(group)
            switch group % 3 {
            case 0:
                #expect(cycle.objects == [first, first + 1] && cycle.leaked && cycle.unexplainedHolders.isEmpty)
                #expect(cycle.signature == "Sink —cancel→ SinkDisposer —sink→ Sink")
            case 1:
                #expect(cycle.objects == [first, first + 1] && !cycle.leaked)
                #expect(cycle.unexplainedHolders == [Cycle.Holder(object: first + 1, unexplained: 1, knownHolders: [])])
            default:
                #expect(cycle.objects == [first, first + 1, first + 2] && cycle.leaked)
                #expect(cycle.loopDescription == "A —b→ B —c→ C —a→ A")
            }
        }
        #expect(seen.count == groups)
        #expect(report.leakedObjectIDs.count == groups / 3 * 2 + groups / 3 * 3)
    }
}
