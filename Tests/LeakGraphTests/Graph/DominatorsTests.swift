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
}
