import Foundation
import LeakGraph
import Testing

/// Plain classes the churning threads make and drop.
private final class ChurnNode {
    var next: ChurnNode?
    var items: [ChurnNode] = []
    var byName: [String: ChurnNode] = [:]
    var tags: Set<Int> = []
    /// A struct of four words in `Any`: stored out of line, in a box the snapshot does not hold.
    var payload: Any?
    var callback: (() -> Int)?
}

/// Big enough to be boxed when stored in `Any`.
private struct ChurnPayload {
    var first: ChurnNode?
    var second: ChurnNode?
    var numbers: [Int]
    var name: String
}

private final class StressLeakA {
    var b: StressLeakB?
}

private final class StressLeakB {
    var a: StressLeakA?
}

@inline(never)
private func plantStressLeak() {
    let a = StressLeakA()
    let b = StressLeakB()
    a.b = b
    b.a = a
}

/// Snapshots while other threads allocate, link and free plain objects and closures as fast as
/// they can: a snapshot must never touch freed memory (a crash, or a sanitizer report), and a
/// leak made before stays a leak in every snapshot.
@Suite(
    "Whole-process tracking under concurrency",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct ProcessTrackingConcurrencyTests {
    @Test("snapshots while two threads churn plain objects and closures: no crash, the leak is found every time")
    func snapshotsWhileChurning() throws {
        let scale = Double(ProcessInfo.processInfo.environment["LEAKGRAPH_STRESS_SCALE"] ?? "") ?? 1
        let snapshots = max(3, Int(20 * scale))
        _ = LeakScope.run { plantStressLeak() }
        let stop = Flag(false)
        let rounds = Flag(0)
        let threads = (0..<2).map { seed in
            Thread {
                var keep: [ChurnNode] = []
                var round = seed
                while !stop.load() {
                    round &+= 1
                    if round % 256 == 0 { rounds.store(rounds.load() + 256) }
                    let node = ChurnNode()
                    node.next = keep.last
                    node.items = Array(keep.suffix(3))
                    // Storage the snapshot never holds, replaced (and freed) while it reads.
                    if let last = keep.last {
                        last.byName = ["next \(round)": node, "self": last]
                        last.tags = Set((0..<(round % 17)).map { $0 &* round })
                        last.payload = ChurnPayload(
                            first: node, second: keep.first, numbers: [round], name: "p\(round)")
                    }
                    let captured = node.items.count
                    node.callback = { [weak node] in (node?.items.count ?? 0) + captured }
                    keep.append(node)
                    if keep.count > 64 {
                        // Unlinked, so that the dropped ones die (each links to earlier ones).
                        for old in keep.prefix(32) {
                            old.next = nil
                            old.items = []
                            old.byName = [:]
                            old.payload = nil
                        }
                        keep.removeFirst(32)
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        defer { stop.store(true) }
        var taken = 0
        // Until the threads have churned a good while, and at least `snapshots` times.
        while taken < snapshots || rounds.load() < Int(200_000 * scale) {
            taken += 1
            let snapshot = LeakGraph.snapshot()
            let report = LeakDetector.analyze(snapshot)
            let leakedTypes = Set(
                report.leakedObjectIDs.compactMap { snapshot.object($0)?.type }.filter { $0.hasPrefix("StressLeak") })
            #expect(leakedTypes == ["StressLeakA", "StressLeakB"])
        }
    }
}

/// A minimal atomic flag for the churning threads (Foundation's `Thread` takes a `@Sendable` block).
private final class Flag<Value: Sendable>: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func load() -> Value { lock.withLock { value } }
    func store(_ newValue: Value) { lock.withLock { value = newValue } }
}
