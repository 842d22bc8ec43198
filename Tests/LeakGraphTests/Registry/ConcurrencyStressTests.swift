import Foundation
import LeakGraph
import Synchronization
import Testing

final class StressNode: TrackedObject {
    @StrongRef var peer: StressNode?
    @WeakRef var back: StressNode?
}

/// Many threads allocate, link and drop tracked objects while another thread snapshots and
/// analyses in a loop. Scale with LEAKGRAPH_STRESS_SCALE (1 = 8 threads × 100,000 objects).
@Suite("Concurrency stress", .serialized)
struct ConcurrencyStressTests {
    static var objectsPerThread: Int {
        let scale = Double(ProcessInfo.processInfo.environment["LEAKGRAPH_STRESS_SCALE"] ?? "") ?? 1
        return max(1_000, Int(100_000 * scale))
    }

    @Test("8 threads × 100k objects with edges, snapshots in a loop: nothing lost, nothing left, no false leak")
    func allocateLinkDropWhileSnapshotting() async throws {
        let checkpoint = LeakGraph.checkpoint()
        let threads = 8
        let perThread = Self.objectsPerThread
        let done = Atomic<Int>(0)
        let snapshots = Atomic<Int>(0)
        let falseLeaks = Mutex<[String]>([])
        let badEdges = Atomic<Int>(0)

        let snapshotter = Thread {
            while done.load(ordering: .acquiring) < threads {
                let (snapshot, report) = LeakGraph.findLeaks(options: .declaredOnly)
                let ids = Set(snapshot.objects.map(\.id))
                if snapshot.edges.contains(where: { !ids.contains($0.from) || !ids.contains($0.to) }) {
                    badEdges.add(1, ordering: .relaxed)
                }
                // Every StressNode pair is held by its thread's local until after it is unlinked.
                let leakedStress = report.leakedObjectIDs.filter { id in
                    id >= checkpoint.nextObjectID && snapshot.object(id)?.type == "StressNode"
                }
                if !leakedStress.isEmpty {
                    falseLeaks.withLock {
                        $0.append("snapshot \(snapshots.load(ordering: .relaxed)): \(leakedStress.count) objects")
                    }
                }
                snapshots.add(1, ordering: .relaxed)
            }
        }
        snapshotter.start()
        // Plain threads, not the test's cooperative thread pool, which other suites need.
        for _ in 0..<threads {
            Thread {
                for _ in 0..<(perThread / 2) {
                    let first = StressNode()
                    let second = StressNode()
                    first.peer = second
                    second.peer = first
                    second.back = first
                    second.peer = nil
                    first.peer = nil
                    withExtendedLifetime((first, second)) {}
                }
                done.add(1, ordering: .releasing)
            }.start()
        }
        while !snapshotter.isFinished { try await Task.sleep(for: .milliseconds(20)) }
        #expect(
            LeakGraph.liveObjects(since: checkpoint, options: .declaredOnly).filter { $0.type == "StressNode" }.isEmpty)
        #expect(badEdges.load(ordering: .relaxed) == 0)
        #expect(falseLeaks.withLock { $0 } == [])
        #expect(snapshots.load(ordering: .relaxed) > 0)
        print("stress: \(threads) threads × \(perThread) objects, \(snapshots.load(ordering: .relaxed)) snapshots")
    }

    @Test("a leaked cycle of objects registered with track stays leaked while other threads snapshot them")
    func trackedExternalCycleStaysLeakedUnderConcurrentSnapshots() async throws {
        let checkpoint = LeakGraph.checkpoint()
        makeExternalCycle()
        let stop = Atomic<Bool>(false)
        // Declared-only snapshots and fingerprints load every external object's weak reference:
        // each load is a strong temporary that must never be counted as an outside holder.
        let readers = (0..<2).map { _ in
            Thread {
                while !stop.load(ordering: .acquiring) {
                    _ = LeakGraph.snapshot(options: .declaredOnly).objects.count
                    _ = LeakGraph.findLeaks(options: .declaredOnly).report.cycles.count
                }
            }
        }
        for reader in readers { reader.start() }
        var verdicts: [String] = []
        // Under LEAKGRAPH_TRACK=all each look walks every object of the test process (the other
        // tests' too), a few tenths of a second each: fewer looks, the same race.
        for _ in 0..<(LeakGraph.isTrackingAllObjects ? 10 : 40) {
            let (snapshot, report) = LeakGraph.findLeaks()
            let ids = Set(
                snapshot.objects.filter { $0.id >= checkpoint.nextObjectID && $0.type.hasSuffix("ExternalPeer") }
                    .map(\.id))
            let cycle = report.cycles.first { Set($0.objects) == ids }
            verdicts.append(cycle.map { $0.leaked ? "leaked" : "retained" } ?? "missing")
        }
        stop.store(true, ordering: .releasing)
        while readers.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(verdicts.allSatisfy { $0 == "leaked" }, "\(verdicts)")
    }

    @Test("a deinit that allocates, links and unlinks tracked objects while snapshots run does not deadlock")
    func reentrantDeinit() async throws {
        let checkpoint = LeakGraph.checkpoint()
        let stop = Atomic<Bool>(false)
        let snapshotter = Thread {
            while !stop.load(ordering: .acquiring) { _ = LeakGraph.findLeaks() }
        }
        snapshotter.start()
        // Each deinit takes two snapshots, one full: with LEAKGRAPH_TRACK=all that walks every
        // object of the test process (tens of milliseconds, 150 s for 2,000 deinits), so whole-
        // process runs make a tenth as many; the sanitizer jobs' scale of 0.1 matters here most.
        let stressScale = Double(ProcessInfo.processInfo.environment["LEAKGRAPH_STRESS_SCALE"] ?? "") ?? 1
        let deinits =
            LeakGraph.isTrackingAllObjects ? max(20, Int(200 * stressScale)) : max(100, Int(2_000 * stressScale))
        for _ in 0..<deinits { _ = ReentrantNode() }
        stop.store(true, ordering: .releasing)
        while !snapshotter.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        #expect(
            LeakGraph.liveObjects(since: checkpoint).filter { $0.type == "ReentrantNode" || $0.type == "StressNode" }
                .isEmpty)
    }
}

final class ReentrantNode: TrackedObject {
    deinit {
        let a = StressNode()
        let b = StressNode()
        a.peer = b
        LeakGraph.addEdge(from: b, to: a, kind: .weak, label: "in-deinit")
        a.peer = nil
        _ = LeakGraph.snapshot(options: .declaredOnly).objects.count
        _ = LeakGraph.snapshot().objects.count  // a full snapshot from a deinit that a snapshot may trigger
    }
}

/// A plain class LeakGraph knows only through ``LeakGraph/track(_:label:)``.
final class ExternalPeer {
    var peer: ExternalPeer?
}

@inline(never)
private func makeExternalCycle() {
    let first = ExternalPeer()
    let second = ExternalPeer()
    first.peer = second
    second.peer = first
    LeakGraph.track(first, label: "first")
    LeakGraph.track(second, label: "second")
}
