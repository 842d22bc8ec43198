import LeakGraph
import LeakGraphRx
import Testing

/// A long-lived owner of subscriptions, as a view model or a service is.
final class SubscriptionOwner: TrackedObject {
    let bag = DisposeBag()
}

/// Holds a subject without keeping it alive, as a coordinator with a `weak var` does.
final class WeakSubjectHolder {
    weak var subject: PublishSubject<Int>?
}

@Suite("Lifecycle kinds of subscriptions", .serialized)
struct LifecycleKindsTests {
    /// The analysis with LeakGraphRx's disposal labels, as `LeakGraph.findLeaks()` runs it.
    private func kinds(_ outcome: Outcome) -> (neverFinished: [String], canNeverFinish: [String], finished: [String]) {
        let report = LeakDetector.analyze(outcome.snapshot, disposalLabels: LeakAdvice.disposalLabels)
        let mine = Set(outcome.alive.map(\.id))
        func names(_ ids: [UInt64]) -> [String] {
            ids.filter(mine.contains).compactMap { outcome.snapshot.object($0) }.map { bareName($0.type) }.sorted()
        }
        let finished = outcome.snapshot.objects.filter { mine.contains($0.id) && $0.state.isFinished }.map(\.id)
        return (names(report.neverFinished), names(report.canNeverFinish), names(finished))
    }

    @Test("a subscription kept in a bag to a subject nobody else holds can never finish")
    func subjectDroppedCanNeverFinish() {
        var owner: SubscriptionOwner?
        let outcome = lifecycle {
            let subject = PublishSubject<Int>()
            let made = SubscriptionOwner()
            subject.map { $0 + 1 }.subscribe(onNext: { _ in }).disposed(by: made.bag)
            owner = made
        }
        let result = kinds(outcome)
        #expect(result.canNeverFinish == ["AnonymousObserver", "MapSink"])
        #expect(result.neverFinished.isEmpty)
        // Retained, not leaked: the bag still holds it.
        #expect(outcome.report.leakedObjectIDs.isDisjoint(with: outcome.alive.map(\.id)))
        withExtendedLifetime(owner) {}
    }

    @Test("the same subscription while the program still holds the subject never finished, and can")
    func subjectHeldNeverFinished() {
        var owner: SubscriptionOwner?
        var source: PublishSubject<Int>?
        let outcome = lifecycle {
            let subject = PublishSubject<Int>()
            let made = SubscriptionOwner()
            subject.map { $0 + 1 }.subscribe(onNext: { _ in }).disposed(by: made.bag)
            owner = made
            source = subject
        }
        let result = kinds(outcome)
        #expect(result.neverFinished == ["AnonymousObserver", "MapSink"])
        #expect(result.canNeverFinish.isEmpty)
        withExtendedLifetime((owner, source)) {}
    }

    @Test("a weak reference from code the graph does not see keeps the subject reachable: never finished")
    func weakHolderOutsideTheGraph() {
        var owner: SubscriptionOwner?
        let holder = WeakSubjectHolder()
        let outcome = lifecycle {
            let subject = PublishSubject<Int>()
            let made = SubscriptionOwner()
            subject.subscribe(onNext: { _ in }).disposed(by: made.bag)
            holder.subject = subject
            owner = made
        }
        // The subject is alive only through the subscription's disposable, yet the holder can
        // still send it events.
        #expect(holder.subject != nil)
        let subject = outcome.snapshot.objects.first {
            bareName($0.type) == "PublishSubject" && outcome.alive.contains($0)
        }
        #expect(subject?.weakAndUnownedReferenceCount == 1)
        let report = LeakDetector.analyze(outcome.snapshot, disposalLabels: LeakAdvice.disposalLabels)
        let mine = Set(outcome.alive.map(\.id))
        #expect(report.canNeverFinish.filter(mine.contains).isEmpty)
        #expect(!report.neverFinished.filter(mine.contains).isEmpty)
        withExtendedLifetime(owner) {}
    }

    @Test("a never-ending source subscribed into a kept bag can never finish; an interval timer can still emit")
    func neverAndInterval() {
        var owner: SubscriptionOwner?
        let never = lifecycle {
            let made = SubscriptionOwner()
            Observable<Int>.never().subscribe(onNext: { _ in }).disposed(by: made.bag)
            Observable<Int>.create { _ in Disposables.create() }.subscribe(onNext: { _ in }).disposed(by: made.bag)
            owner = made
        }
        #expect(kinds(never).canNeverFinish.contains("AnonymousObservableSink"))
        #expect(kinds(never).neverFinished.isEmpty)
        withExtendedLifetime(owner) {}
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        let interval = lifecycle {
            let made = SubscriptionOwner()
            Observable<Int>.interval(.seconds(1000), scheduler: scheduler).subscribe(onNext: { _ in })
                .disposed(by: made.bag)
            owner = made
        }
        #expect(!kinds(interval).neverFinished.isEmpty)
        #expect(kinds(interval).canNeverFinish.isEmpty)
        // The timer's Dispatch source holds it (a reference the graph cannot read): named.
        let timer = interval.alive.first { $0.label == "periodic timer" }
        #expect(timer?.outsideHolders.first?.hasPrefix("a Dispatch timer (every ") == true, "\(interval.dump)")
        withExtendedLifetime(owner) {}
    }

    @Test("findLeaks and the leak trace report each kind apart")
    func traceNamesTheKinds() {
        var owner: SubscriptionOwner?
        var source: PublishSubject<String>?
        let scope = LeakScope.run {
            let made = SubscriptionOwner()
            let dropped = PublishSubject<Int>()
            dropped.map { $0 * 2 }.subscribe(onNext: { _ in }).disposed(by: made.bag)
            let kept = PublishSubject<String>()
            kept.subscribe(onNext: { _ in }).disposed(by: made.bag)
            owner = made
            source = kept
        }.scope
        let found = snapshotLock.withLock { _ in LeakGraph.findLeaks() }
        let mine = Set(found.snapshot.objects.filter { $0.scope == scope.id }.map(\.id))
        #expect(found.report.canNeverFinish.contains { mine.contains($0) })
        #expect(found.report.neverFinished.contains { mine.contains($0) })
        let text = LeakTrace.describe(found.snapshot, report: found.report, objects: mine)
        #expect(text.contains("Can never finish (active, but nothing outside can send them an event or a completion"))
        #expect(text.contains("MapSink<Int"))
        #expect(text.contains("Never finished (still active; something outside can still send them events):"))
        withExtendedLifetime((owner, source)) {}
    }
}
