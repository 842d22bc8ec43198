import LeakGraph
import LeakGraphRx
import LeakGraphRxTest
import XCTest

/// Operators tested the way RxTest users test them (hot and cold observables, `start`, exact
/// virtual-time traces), each followed by the leak check RxTest never had.
final class OperatorTraceTests: XCTestCase {
    func testFilterKeepsMatchingElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(230, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.filter { $0 % 2 == 0 } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(240, 4), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testTakeCompletesAndUnsubscribesAtTheCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let res = scheduler.start { xs.take(2) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        scheduler.assertNoLeaks()
    }

    func testScanAccumulates() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(250)])
        let res = scheduler.start { xs.scan(0) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 3), .next(230, 6), .completed(250)])
        scheduler.assertNoLeaks()
    }

    func testDistinctUntilChangedDropsRepeats() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 1), .next(230, 2), .next(240, 2), .next(250, 1), .completed(260),
        ])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 1), .completed(260)])
        scheduler.assertNoLeaks()
    }

    func testZipPairsElementsInOrderAndCompletesWhenAllSourcesDid() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(250)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(300)])
        let res = scheduler.start { Observable.zip(xs, ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(220, "1a"), .next(240, "2b"), .completed(300)])
        // A completed source's own subscription ends with it, as in RxSwift.
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testCombineLatestEmitsOnEveryElementOnceAllHaveOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(260)])
        let res = scheduler.start { Observable.combineLatest(xs, ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(220, "1a"), .next(230, "2a"), .next(240, "2b"), .completed(300)])
        scheduler.assertNoLeaks()
    }

    func testMergeInterleavesByTimeAndCompletesWithTheLast() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, 2), .next(240, 4), .completed(250)])
        let res = scheduler.start { Observable.merge(xs.asObservable(), ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
        scheduler.assertNoLeaks()
    }

    func testConcatSubscribesToTheNextSourceWhenOneCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
        let ys = scheduler.createColdObservable([.next(10, 3), .completed(20)])
        let res = scheduler.start { Observable.concat(xs.asObservable(), ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(240, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(230, 250)])
        scheduler.assertNoLeaks()
    }

    func testPublishSubjectSendsToTheObserversSubscribedAtTheTime() {
        let scheduler = TestScheduler(initialClock: 0)
        var subject: PublishSubject<Int>!
        var first: Disposable!
        var second: Disposable!
        let results1 = scheduler.createObserver(Int.self)
        let results2 = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { subject = PublishSubject<Int>() }
        scheduler.scheduleAt(200) { first = subject.subscribe(results1) }
        scheduler.scheduleAt(300) { second = subject.subscribe(results2) }
        scheduler.scheduleAt(250) { subject.onNext(1) }
        scheduler.scheduleAt(350) { subject.onNext(2) }
        scheduler.scheduleAt(400) { first.dispose() }
        scheduler.scheduleAt(450) { subject.onNext(3) }
        scheduler.scheduleAt(500) { subject.onCompleted() }
        scheduler.scheduleAt(600) { second.dispose() }
        scheduler.start()
        XCTAssertEqual(results1.events, [.next(250, 1), .next(350, 2)])
        XCTAssertEqual(results2.events, [.next(350, 2), .next(450, 3), .completed(500)])
    }

    func testMapErrorIsRecordedWithItsTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start {
            xs.map { value -> Int in
                if value == 2 { throw TimeTestError.boom }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, TimeTestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        scheduler.assertNoLeaks()
    }
}
