import LeakGraph
import LeakGraphTestSupport
import Testing

@Suite("Dominators")
struct DominatorsTests {
    private func object(_ id: UInt64, count: Int? = nil) -> ObjectInfo {
        ObjectInfo(
            id: id, type: "T\(id)", label: nil, strongRetainCount: count, stack: nil, time: 0, state: .unspecified,
            scope: 0)
    }

    private func edge(_ from: UInt64, _ to: UInt64) -> EdgeInfo {
        EdgeInfo(from: from, to: to, kind: .strong, label: "e", origin: .declared)
    }

    @Test("a chain and a diamond: each node keeps alive what only it holds")
    func chainAndDiamond() {
        // 1 → 2 → 3, 1 → 4 → 6, 1 → 5 → 6: 1 keeps all alive, 2 keeps 3, 4 and 5 keep nothing alone.
        let snapshot = GraphSnapshot(
            objects: (1...6).map { object($0) },
            edges: [edge(1, 2), edge(2, 3), edge(1, 4), edge(4, 6), edge(1, 5), edge(5, 6)])
        let dominators = Dominators(snapshot, report: LeakReport(cycles: [], leakedObjectIDs: []))
        #expect(dominators.keepsAlive(of: 1) == 5)
        #expect(dominators.keepsAlive(of: 2) == 1)
        #expect(dominators.keepsAlive(of: 4) == 0)
        #expect(dominators.immediateDominator(of: 6) == 1)
        #expect(dominators.keptAlive(by: 2) == [3])
    }

    @Test("a leaked cycle is rooted at its newest member, which keeps the whole leak alive")
    func leakedCycleRoot() {
        let snapshot = GraphSnapshot(
            objects: (1...4).map { object($0, count: 1) }, edges: [edge(1, 2), edge(2, 1), edge(2, 3), edge(3, 4)])
        let report = LeakReport(
            cycles: [Cycle(objects: [1, 2], leaked: true, signature: "", path: [], loopDescription: "")],
            leakedObjectIDs: [1, 2, 3, 4])
        let dominators = Dominators(snapshot, report: report)
        #expect(dominators.keepsAlive(of: 2) == 3)
        #expect(dominators.keepsAlive(of: 1) == 0)
        #expect(dominators.keepsAlive(of: 3) == 1)
    }

    @Test("seeded random graphs agree with a brute-force oracle: remove the node, count what becomes unreachable")
    func randomGraphsAgreeWithOracle() {
        var random = SeededGenerator(seed: 0xD0_4141)
        for _ in 0..<60 {
            let count = Int.random(in: 2...40, using: &random)
            var edges: [EdgeInfo] = []
            for from in 1...count {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let to = Int.random(in: 1...count, using: &random)
                    if to != from { edges.append(edge(UInt64(from), UInt64(to))) }
                }
            }
            let snapshot = GraphSnapshot(objects: (1...count).map { object(UInt64($0)) }, edges: edges)
            let dominators = Dominators(snapshot, report: LeakReport(cycles: [], leakedObjectIDs: []))
            // The same roots as the algorithm's: objects nothing in the graph holds.
            let held = Set(edges.map(\.to))
            let roots = (1...count).map(UInt64.init).filter { !held.contains($0) }
            func reachable(without removed: UInt64?) -> Set<UInt64> {
                var seen = Set(roots.filter { $0 != removed })
                var queue = Array(seen)
                while let next = queue.popLast() {
                    for edge in edges where edge.from == next && edge.to != removed && !seen.contains(edge.to) {
                        seen.insert(edge.to)
                        queue.append(edge.to)
                    }
                }
                return seen
            }
            let all = reachable(without: nil)
            for id in all {
                let expected = all.subtracting(reachable(without: id)).subtracting([id]).count
                #expect(dominators.keepsAlive(of: id) == expected, "node \(id) of \(count)")
            }
        }
    }

    @Test("scattered ids (a hashed index, object 0 among them) give the same tree as dense ones")
    func scatteredIDsMatchDenseIDs() {
        var random = SeededGenerator(seed: 0x5CA7_7E4D)
        for _ in 0..<40 {
            let count = Int.random(in: 2...60, using: &random)
            var pairs: [(Int, Int)] = []
            for from in 0..<count {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let to = Int.random(in: 0..<count, using: &random)
                    if to != from { pairs.append((from, to)) }
                }
            }
            // Dense: 1...count. Scattered: 0, then gaps far wider than 4× the count.
            func dense(_ node: Int) -> UInt64 { UInt64(node + 1) }
            func scattered(_ node: Int) -> UInt64 { UInt64(node) * 1_000_003 }
            func tree(_ id: (Int) -> UInt64) -> Dominators {
                let snapshot = GraphSnapshot(
                    objects: (0..<count).map { object(id($0)) }, edges: pairs.map { edge(id($0.0), id($0.1)) })
                return Dominators(snapshot, report: LeakReport(cycles: [], leakedObjectIDs: [id(0)]))
            }
            let denseTree = tree(dense)
            let scatteredTree = tree(scattered)
            for node in 0..<count {
                #expect(scatteredTree.keepsAlive(of: scattered(node)) == denseTree.keepsAlive(of: dense(node)))
                #expect(
                    scatteredTree.keptAlive(by: scattered(node)).count == denseTree.keptAlive(by: dense(node)).count)
                #expect(
                    scatteredTree.immediateDominator(of: scattered(node)).map { $0 / 1_000_003 }
                        == denseTree.immediateDominator(of: dense(node)).map { $0 - 1 })
            }
            #expect(scatteredTree.keepsAlive(of: 7) == 0)
        }
    }
}
