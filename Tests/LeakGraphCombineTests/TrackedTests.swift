import Foundation
import LeakGraph
import LeakGraphCombine
import Testing

/// Each test runs in its own leak scope and looks only at what it allocated.
@Suite("Combine pipelines")
struct TrackedTests {
    private func mine(_ scope: LeakScope) -> (snapshot: GraphSnapshot, report: LeakReport, ids: Set<UInt64>) {
        let (snapshot, report) = LeakGraph.findLeaks()
        return (snapshot, report, Set(snapshot.objects.filter { $0.scope == scope.id }.map(\.id)))
    }

    private func settle(_ scope: LeakScope, until condition: (Set<UInt64>) -> Bool) -> Bool {
        for _ in 0..<200 {
            let ids = Set(LeakGraph.liveObjects(in: scope, options: .declaredOnly).map(\.id))
            if condition(ids) { return true }
            usleep(5_000)
        }
        return false
    }

    @Test("receive(subscriber:) never cancelled: subscriber ⇄ subscription is a leaked cycle")
    func neverCancelledLeaks() {
        let (scope, _) = LeakScope.run { attachNeverCancelled() }
        let (snapshot, report, ids) = mine(scope)
        let cycles = report.cycles.filter { $0.objects.allSatisfy(ids.contains) }
        #expect(cycles.count == 1)
        #expect(cycles.first?.leaked == true)
        let types = Set(cycles.first?.objects.compactMap { snapshot.object($0)?.type } ?? [])
        #expect(types.contains { $0.hasPrefix("TrackedSubscriber<") })
        #expect(types.contains { $0.hasPrefix("TrackedSubscription<") })
        #expect(cycles.first?.loopDescription.contains("—subscription→") == true)
        #expect(cycles.first?.loopDescription.contains("—subscriber→") == true)
    }

    @Test("the same pipeline cancelled leaves nothing alive")
    func cancelledLeavesNothing() {
        let (scope, _) = LeakScope.run { attachAndCancel() }
        #expect(settle(scope) { $0.isEmpty })
    }

    @Test("trackedSink stored in a set and cancelled leaves nothing alive; values arrive")
    func storeAndCancel() {
        let received = Locked([Int]())
        let (scope, _) = LeakScope.run {
            let subject = PassthroughSubject<Int, Never>()
            var bag = Set<AnyCancellable>()
            subject.map { $0 * 10 }.tracked(label: "tens").trackedSink { value in received.withLock { $0.append(value) }
            }
            .store(in: &bag)
            subject.send(1)
            subject.send(2)
            bag.removeAll()
            subject.send(3)
        }
        #expect(received.withLock { $0 } == [10, 20])
        #expect(settle(scope) { $0.isEmpty })
    }

    @Test("a completed pipeline lets go of everything")
    func completionReleases() {
        let (scope, _) = LeakScope.run {
            let subscriber = TrackedSubscriber<Int, Never> { _ in }
            [1, 2, 3].publisher.tracked().receive(subscriber: subscriber)
        }
        #expect(settle(scope) { $0.isEmpty })
    }
}

/// A pipeline that never completes (Empty without completion) attached and dropped uncancelled.
@inline(never)
private func attachNeverCancelled() {
    let subscriber = TrackedSubscriber<Int, Never>(label: "forgotten") { _ in }
    Empty<Int, Never>(completeImmediately: false).tracked(label: "pipeline").receive(subscriber: subscriber)
}

@inline(never)
private func attachAndCancel() {
    let subscriber = TrackedSubscriber<Int, Never>(label: "cancelled") { _ in }
    Empty<Int, Never>(completeImmediately: false).tracked(label: "pipeline").receive(subscriber: subscriber)
    subscriber.cancel()
}

@Suite("LeakGraphCombine with a PassthroughSubject")
struct PassthroughSubjectLeakTests {
    @Test("a subject pipeline attached with receive(subscriber:), never cancelled, subject dropped: leaked, with a fix")
    func subjectPipelineNeverCancelledLeaks() {
        let (scope, _) = LeakScope.run { attachToSubjectNeverCancelled() }
        let found = LeakGraph.findLeaks()
        let snapshot = Symbolicator.symbolicate(found.snapshot)
        // This test's objects only: other suites allocate at the same time.
        let ids = Set(snapshot.objects.filter { $0.scope == scope.id }.map(\.id))
        let text = LeakTrace.describe(snapshot, report: found.report, objects: ids)
        let cycles = found.report.cycles.filter { $0.objects.contains(where: ids.contains) }
        #expect(cycles.count == 1, "\(text)")
        #expect(cycles.first?.leaked == true, "\(text)")
        #expect(text.contains("Fix: cut"), "\(text)")
        #expect(text.contains("cancel"), "\(text)")
    }
}

@inline(never)
private func attachToSubjectNeverCancelled() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TrackedSubscriber<Int, Never>(label: "forgotten") { _ in }
    subject.map { $0 * 2 }.tracked(label: "pipeline").receive(subscriber: subscriber)
    subject.send(1)
}
