import Dispatch
import Foundation
import LeakGraph
import LeakGraphRx
import LeakGraphRxBlocking
import LeakGraphRxTest
import XCTest

/// What RxSwift 6.10 does where LeakGraphRx once did otherwise, each case found by running
/// RxSwift's own test suite against LeakGraphRx (read from RxSwift's sources; the traces are
/// ours). Every test ends with the scheduler's leak check where it has one.
final class RxSwiftBehaviourTests: XCTestCase {
    private struct Failure: Error {}

    // MARK: Connections

    func testAConnectionEndsBeforeItsSubscribersHearOfTheEnd() {
        // A subscriber that subscribes again on completion joins the next connection, not the
        // one that is ending: it sees the source's elements again.
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let shared = source.publish().refCount()
        let observer = scheduler.createObserver(Int.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(200) {
            subscriptions.append(
                shared.subscribe(
                    onNext: { observer.onNext($0) },
                    onCompleted: {
                        observer.onCompleted()
                        if subscriptions.count == 1 { subscriptions.append(shared.subscribe(observer)) }
                    }))
        }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1), .completed(220), .next(230, 1), .completed(240)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 220), Subscription(220, 240)])
        subscriptions.forEach { $0.dispose() }
    }

    func testRefCountDoesNotConnectForASubscriberThatEndedWhileSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([.completed(5, Int.self)])
        let subject = ReplaySubject<Int>.createUnbounded()
        subject.onCompleted()
        // The subject has ended: a subscriber hears so at once, and nothing connects to the source.
        let res = scheduler.start { source.multicast(subject).refCount() }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(source.subscriptions, [])
    }

    func testShareForeverKeepsTheEndedSubjectForLaterSubscribers() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let shared = source.share(replay: 1, scope: .forever)
        let first = scheduler.start(created: 100, subscribed: 200, disposed: 1000) { shared }
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(1100) { _ = shared.subscribe(late) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .completed(220)])
        // The one subject outlives the connection: replayed, never resubscribed.
        XCTAssertEqual(late.events, [.next(1100, 1), .completed(1100)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 220)])
    }

    func testReplayMakesASubjectPerConnection() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let replayed = source.replay(1)
        var connections: [Disposable] = []
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { connections.append(replayed.connect()) }
        scheduler.scheduleAt(300) {
            _ = replayed.subscribe(observer)
            connections.append(replayed.connect())
        }
        scheduler.start()
        // The subscriber of the second connection hears only the second connection.
        XCTAssertEqual(observer.events, [.next(310, 1), .completed(320)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
        connections.forEach { $0.dispose() }
    }

    // MARK: Operators

    func testSkipUntilEndsWithoutCompletingWhenTheSourceEndsBeforeTheTrigger() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(210, 1), .completed(250)])
        let trigger = scheduler.createHotObservable([.next(300, "go")])
        let res = scheduler.start { source.skip(until: trigger) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 250)])
        scheduler.assertNoLeaks()
    }

    func testSubscribeOnReleasesTheSourceOnItsScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.completed(300, Int.self)])
        let res = scheduler.start { source.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(source.subscriptions, [Subscription(201, 301)])
    }

    func testDelayAndObserveOnSendOneEventPerScheduling() {
        let scheduler = TestScheduler(initialClock: 0)
        let delayed = scheduler.start { Single.just(1).delay(.seconds(2), scheduler: scheduler).asObservable() }
        XCTAssertEqual(delayed.events, [.next(202, 1), .completed(203)])
        let observed = TestScheduler(initialClock: 0)
        let res = observed.start { Maybe.just(1).observe(on: observed).asObservable() }
        XCTAssertEqual(res.events, [.next(201, 1), .completed(202)])
    }

    func testRetryWhenListensToTheNotifierOnlyAfterAnError() {
        // The notifier completes before any error: nothing ends, the source's completion does.
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.completed(250, Int.self)])
        let notifier = scheduler.createHotObservable([.completed(210, Int.self)])
        let res = scheduler.start(disposed: 300) { source.retry { (_: Observable<Error>) in notifier } }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 250)])
    }

    func testAndThenReleasesTheFirstCompletableOnceItCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.completed(210, Never.self)])
        final class Captured {}
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        var completable: Completable? = first.asCompletable().do(onCompleted: { [captured] in _ = captured })
        let subscription = completable!.andThen(Completable.never()).subscribe()
        scheduler.advanceTo(300)
        captured = nil
        completable = nil
        XCTAssertNil(weakCaptured, "the first completable is held past its completion")
        subscription.dispose()
    }

    func testCollectionZipEndsWhenNoRowCanBeMade() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let b = scheduler.createHotObservable([.next(215, 2), .next(230, 3), .completed(400)])
        let res = scheduler.start { Observable.zip([a.asObservable(), b.asObservable()]) { $0.reduce(0, +) } }
        // b's 3 cannot make a row (a has ended with nothing queued): the zip ends at 230.
        XCTAssertEqual(res.events, [.next(215, 3), .completed(230)])
        XCTAssertEqual(b.subscriptions, [Subscription(200, 230)])
    }

    func testCombineLatestOfNoSourceSendsTheEmptyRow() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.combineLatest([Observable<Int>]()) { $0.count } }
        XCTAssertEqual(res.events, [.next(200, 0), .completed(200)])
    }

    // MARK: Blocking

    func testToBlockingOnTheMainThreadRunsMainSchedulerWork() throws {
        guard Thread.isMainThread else { throw XCTSkip("XCTest runs this on the main thread") }
        let values = try Observable.just(1).delay(.milliseconds(1), scheduler: MainScheduler.instance)
            .toBlocking(timeout: 5).toArray()
        XCTAssertEqual(values, [1])
    }
}
