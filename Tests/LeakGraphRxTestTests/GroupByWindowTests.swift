import LeakGraph
import LeakGraphRx
import LeakGraphRxTest
import XCTest

/// groupBy and window on virtual time, as RxSwift behaves (read from its sources): groups and
/// windows keep the source subscribed while any of them is subscribed to.
final class GroupByWindowTests: XCTestCase {
    func testGroupByRoutesEachKeysElementsToItsGroup() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, "a1"), .next(220, "b1"), .next(230, "a2"), .completed(300),
        ])
        let res = scheduler.start {
            xs.groupBy { $0.prefix(1) }.flatMap { group in group.map { "\(group.key):\($0)" } }
        }
        XCTAssertEqual(res.events, [.next(210, "a:a1"), .next(220, "b:b1"), .next(230, "a:a2"), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testAGroupStillSubscribedKeepsTheSourceAfterTheOuterSubscriptionIsDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 3), .next(290, 5)])
        let groupObserver = scheduler.createObserver(Int.self)
        var outer: Disposable?
        var inner: Disposable?
        scheduler.scheduleAt(200) {
            outer = xs.groupBy { $0 % 2 }.subscribe(onNext: { group in inner = group.subscribe(groupObserver) })
        }
        scheduler.scheduleAt(250) { outer?.dispose() }
        scheduler.scheduleAt(280) { inner?.dispose() }
        scheduler.start()
        XCTAssertEqual(groupObserver.events, [.next(210, 1), .next(260, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 280)])
    }

    func testGroupByEndsEveryGroupWhenTheKeySelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 0), .completed(300)])
        let res = scheduler.start {
            xs.groupBy { value -> Int in
                if value == 0 { throw TimeTestError.boom }
                return value
            }.flatMap { $0.asObservable() }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, TimeTestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        scheduler.assertNoLeaks()
    }

    func testWindowClosesOnCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(260, 4), .completed(300),
        ])
        let res = scheduler.start {
            xs.window(timeSpan: .seconds(50), count: 2, scheduler: scheduler).enumerated()
                .flatMap { index, window in window.map { "\(index):\($0)" } }
        }
        XCTAssertEqual(
            res.events, [.next(210, "0:1"), .next(220, "0:2"), .next(230, "1:3"), .next(260, "1:4"), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testWindowClosesOnTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(270, 2), .completed(300)])
        let res = scheduler.start {
            xs.window(timeSpan: .seconds(50), count: 10, scheduler: scheduler).enumerated()
                .flatMap { index, window in window.map { "\(index):\($0)" } }
        }
        XCTAssertEqual(res.events, [.next(210, "0:1"), .next(270, "1:2"), .completed(300)])
        scheduler.assertNoLeaks()
    }
}
