import Foundation
import LeakGraph
import LeakGraphTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A node of the random programs: arrays of nodes, some of them shared with a root.
final class OracleNode: TrackedObject {
    var children: [OracleNode] = []
    var spare: [OracleNode] = []
}

/// What the random programs keep alive from outside: copies of arrays and some nodes. The test
/// suite is serialized, and each program clears it.
nonisolated(unsafe) private var roots: (arrays: [[OracleNode]], nodes: [OracleNode]) = ([], [])

@Suite("Shared storage against a brute-force oracle", .serialized)
struct SharedStorageOracleTests {
    /// How many nodes the roots reach.
    private func reachable(from roots: (arrays: [[OracleNode]], nodes: [OracleNode])) -> Int {
        var reached = Set<ObjectIdentifier>()
        var stack = roots.nodes + roots.arrays.flatMap { $0 }
        while let node = stack.popLast() {
            guard reached.insert(ObjectIdentifier(node)).inserted else { continue }
            stack += node.children + node.spare
        }
        return reached.count
    }

    @Test(
        "random programs that copy arrays between holders: leaked is exactly what nothing outside reaches",
        arguments: 0..<24)
    func randomProgram(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 1)
        let count = Int.random(in: 3...12, using: &random)
        let (scope, _) = LeakScope.run {
            let nodes = (0..<count).map { _ in OracleNode(label: "oracle") }
            for node in nodes {
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    node.children.append(nodes[Int.random(in: 0..<count, using: &random)])
                }
                if Bool.random(using: &random) { node.spare = node.children }  // shared within the object
                if Int.random(in: 0..<4, using: &random) == 0 { roots.arrays.append(node.children) }  // copied out
                if Int.random(in: 0..<6, using: &random) == 0 { roots.nodes.append(node) }
            }
        }
        defer { roots = ([], []) }
        // Another suite's snapshot releasing its holds while this one counts can over-count a
        // retain count for an instant (a safe "retained"); a real verdict is stable, so look
        // again before comparing with the oracle.
        var snapshot = LeakGraph.snapshot()
        var report = LeakDetector.analyze(snapshot)
        for _ in 0..<5 {
            let alive = snapshot.objects.filter { $0.scope == scope.id }
            if report.leakedObjectIDs.intersection(alive.map(\.id)).count == alive.count - reachable(from: roots) {
                break
            }
            usleep(20_000)
            snapshot = LeakGraph.snapshot()
            report = LeakDetector.analyze(snapshot)
        }
        let alive = snapshot.objects.filter { $0.scope == scope.id }
        // The oracle: what the roots reach, following every array of every node.
        var reached = Set<ObjectIdentifier>()
        var stack = roots.nodes + roots.arrays.flatMap { $0 }
        while let node = stack.popLast() {
            guard reached.insert(ObjectIdentifier(node)).inserted else { continue }
            stack += node.children + node.spare
        }
        let aliveIDs = Set(alive.map(\.id))
        let leaked = report.leakedObjectIDs.intersection(aliveIDs)
        let expectedLeakedCount = alive.count - reached.count
        #expect(
            leaked.count == expectedLeakedCount, "seed \(seed): \(leaked.count) leaked, oracle \(expectedLeakedCount)")
        // And no reached node is called leaked: map snapshot ids back through the live objects.
        let reachedCount = alive.filter { !report.leakedObjectIDs.contains($0.id) }.count
        #expect(reachedCount == reached.count, "seed \(seed)")
    }
}
