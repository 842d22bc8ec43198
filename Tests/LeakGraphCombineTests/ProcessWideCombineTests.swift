import Foundation
import LeakGraph
import LeakGraphCombine
import Testing

/// A subscriber of the library itself (not `TrackedSubscriber`): it keeps its subscription, as
/// real subscribers do, and cancels only when asked.
private final class KeepingSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    let combineIdentifier = CombineIdentifier()
    var subscription: Subscription?
    var received: [Int] = []

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}

@inline(never)
private func subscribeAndForget(cancel: Bool) {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = KeepingSubscriber()
    subject.map { $0 * 2 }.subscribe(subscriber)
    subject.send(1)
    if cancel { subscriber.subscription?.cancel() }
}

/// The Combine library itself (OpenCombine on Linux), unmodified, seen by whole-process tracking
/// (these run when the suite runs with `LEAKGRAPH_TRACK=all`, as CI does).
@Suite(
    "The Combine library itself, with whole-process tracking",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct ProcessWideCombineTests {
    @Test(
        "a subscriber that keeps its subscription and never cancels, subject dropped: a leaked cycle of the library's types"
    )
    func neverCancelledLeaks() throws {
        let (scope, _) = LeakScope.run { subscribeAndForget(cancel: false) }
        var leakedTypes: Set<String> = []
        var text = ""
        // A leak cannot change; another suite's snapshot holding an object for a moment can
        // make it look retained once.
        for _ in 0..<4 where !leakedTypes.contains("KeepingSubscriber") {
            let (snapshot, report) = LeakGraph.findLeaksToDescribe()
            let ids = Set(snapshot.objects.filter { $0.scope == scope.id }.map(\.id))
            leakedTypes = Set(ids.intersection(report.leakedObjectIDs).compactMap { snapshot.object($0)?.type })
            text = LeakTrace.describe(snapshot, report: report, objects: ids)
        }
        #expect(leakedTypes.contains("KeepingSubscriber"), "\(text)")
        // The library's own subscription type is in the cycle, with the field that closes it.
        #expect(leakedTypes.contains { $0.contains("Map") || $0.contains("Inner") }, "\(leakedTypes)")
        #expect(text.contains("—subscription→"), "\(text)")
    }

    @Test("cancelled: nothing of it stays alive")
    func cancelledFrees() throws {
        let (scope, _) = LeakScope.run { subscribeAndForget(cancel: true) }
        var alive: [ObjectInfo] = []
        for _ in 0..<200 {
            alive = LeakGraph.snapshot().objects.filter {
                $0.scope == scope.id && $0.id >= scope.checkpoint.nextObjectID
            }
            if alive.isEmpty { break }
            usleep(5_000)
        }
        #expect(alive.isEmpty, "\(alive.map(\.displayName))")
    }
}
