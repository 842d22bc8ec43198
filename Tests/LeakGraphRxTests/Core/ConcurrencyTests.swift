import Foundation
import LeakGraph
import LeakGraphRx
import Synchronization
import Testing

/// Subscriptions made on some threads and disposed on others while a subject emits and another
/// thread snapshots and analyses in a loop.
@Suite("Concurrent subscriptions", .serialized)
struct ConcurrencyTests {
    @Test("4 threads subscribe, 2 dispose, 1 emits, 1 snapshots: no false leak, nothing left")
    func subscribeDisposeEmitSnapshot() async throws {
        let perThread = 2_000
        // Thread-safe, not Sendable (as in RxSwift): handed to the threads unchecked.
        let subject = UncheckedSendable(PublishSubject<StressValue>())
        let pending = Locked<[ThreadSafeDisposable]>([])
        let producersDone = Atomic<Int>(0)
        let disposed = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let falseLeaks = Atomic<Int>(0)
        let snapshots = Atomic<Int>(0)
        let received = Atomic<Int>(0)
        let firstFalseLeak = Locked<String?>(nil)

        let (scope, _) = await LeakScope.run {
            var threads: [Thread] = []
            for _ in 0..<4 {
                threads.append(
                    Thread {
                        for _ in 0..<perThread {
                            let disposable = subject.value.map { StressValue(value: $0.value + 1) }.subscribe(onNext: {
                                _ in
                                received.add(1, ordering: .relaxed)
                            })
                            pending.withLock { $0.append(ThreadSafeDisposable(disposable)) }
                        }
                        producersDone.add(1, ordering: .releasing)
                    })
            }
            for _ in 0..<2 {
                threads.append(
                    Thread {
                        while true {
                            let next = pending.withLock { $0.popLast() }
                            if let next {
                                next.dispose()
                                disposed.add(1, ordering: .relaxed)
                            } else if producersDone.load(ordering: .acquiring) == 4 {
                                break
                            } else {
                                usleep(100)  // do not starve the other suites running meanwhile
                            }
                        }
                    })
            }
            threads.append(
                Thread {
                    var value = 0
                    while !stop.load(ordering: .acquiring) {
                        subject.value.onNext(StressValue(value: value))
                        value += 1
                        if value % 64 == 0 { usleep(100) }
                    }
                })
            threads.append(
                Thread {
                    while !stop.load(ordering: .acquiring) {
                        let (snapshot, report) = LeakGraph.findLeaks(options: .declaredOnly)
                        // Every live subscription is held by the subject: never leaked. (The element
                        // type marks this test's objects among those of tests running alongside.)
                        let subscriptionObjects = snapshot.objects.filter { $0.type.contains("StressValue") }
                        if subscriptionObjects.contains(where: { report.leakedObjectIDs.contains($0.id) }) {
                            falseLeaks.add(1, ordering: .relaxed)
                            let description = report.leakedCycles.filter { cycle in
                                cycle.objects.contains { id in subscriptionObjects.contains { $0.id == id } }
                            }.map { cycle in
                                cycle.loopDescription + " "
                                    + cycle.objects.map { id in
                                        let object = snapshot.object(id)
                                        let edges = snapshot.edges.filter { $0.to == id }.map {
                                            "\($0.from)-\($0.label)x\($0.count)"
                                        }
                                        return
                                            "#\(id) rc=\(object?.strongRetainCount ?? -1) \(object?.state.rawValue ?? "") in:\(edges)"
                                    }.joined(separator: "; ")
                            }.joined(separator: " | ")
                            firstFalseLeak.withLock { if $0 == nil { $0 = description } }
                        }
                        snapshots.add(1, ordering: .relaxed)
                        usleep(1_000)
                    }
                })
            threads.forEach { $0.start() }
            while disposed.load(ordering: .relaxed) < 4 * perThread {
                try? await Task.sleep(for: .milliseconds(10))
            }
            stop.store(true, ordering: .releasing)
            while threads.contains(where: { !$0.isFinished }) { try? await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(falseLeaks.load(ordering: .relaxed) == 0, "\(firstFalseLeak.withLock { $0 } ?? "")")
        #expect(snapshots.load(ordering: .relaxed) > 0)
        #expect(received.load(ordering: .relaxed) > 0)
        // Everything the subscriptions made is gone once they are disposed.
        var alive = LeakGraph.liveObjects(in: scope, options: .declaredOnly)
        for _ in 0..<100 where !alive.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            alive = LeakGraph.liveObjects(in: scope, options: .declaredOnly)
        }
        #expect(alive.isEmpty, "\(alive.prefix(5).map(\.type))")
        withExtendedLifetime(subject) {}
    }
}

/// The element type of the stress test's subject: it marks the test's objects by type.
struct StressValue: Sendable {
    var value: Int
}

/// A disposable handed between threads: `Disposable` is not `Sendable` (as in RxSwift), but the
/// ones `subscribe` returns are built to be disposed from any thread.
private struct ThreadSafeDisposable: @unchecked Sendable {
    let disposable: Disposable
    init(_ disposable: Disposable) { self.disposable = disposable }
    func dispose() { disposable.dispose() }
}
