import LeakGraph
import LeakGraphRx
import LeakGraphRxTest
import XCTest

/// RxTest-style tests of the time operators on virtual time, each followed by the scheduler's
/// leak check. Traces follow RxSwift 6.10's behaviour (read from its sources).
final class TimeOperatorTests: XCTestCase {
    func testMapOnAHotObservableRecordsEventsAndSubscriptions() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(210, 20), .next(220, 30), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testColdObservableTimesAreRelativeToTheSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, "a"), .next(20, "b"), .completed(30)])
        let res = scheduler.start { xs.asObservable() }
        XCTAssertEqual(res.events, [.next(210, "a"), .next(220, "b"), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        scheduler.assertNoLeaks()
    }

    func testIntervalTicksEveryPeriodUntilTake() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.interval(.seconds(10), scheduler: scheduler).take(3) }
        XCTAssertEqual(res.events, [.next(210, 0), .next(220, 1), .next(230, 2), .completed(230)])
        scheduler.assertNoLeaks()
    }

    func testIntervalRunsUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 245) { Observable<Int>.interval(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 0), .next(220, 1), .next(230, 2), .next(240, 3)])
        scheduler.assertNoLeaks()
    }

    func testOneShotTimerEmitsZeroThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(250, 0), .completed(250)])
        scheduler.assertNoLeaks()
    }

    func testDebounceEmitsAfterQuietPeriodAndFlushesOnCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(215, 3), .next(250, 4), .next(295, 5), .completed(300),
        ])
        let res = scheduler.start { xs.debounce(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(225, 3), .next(260, 4), .next(300, 5), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }

    func testThrottleLatestSendsFirstThenLatestAtPeriodEnd() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(218, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.throttle(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 3), .next(250, 4), .completed(300)])
        scheduler.assertNoLeaks()
    }

    func testThrottleWithoutLatestDropsWhatArrivesWithinThePeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(218, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.throttle(.seconds(20), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 4), .completed(300)])
        scheduler.assertNoLeaks()
    }

    func testDelayShiftsElementsAndCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(230)])
        let res = scheduler.start { xs.delay(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, 2), .next(240, 3), .completed(250)])
        scheduler.assertNoLeaks()
    }

    func testDelayDeliversAnErrorAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .error(215, TimeTestError.boom)])
        let res = scheduler.start { xs.delay(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(215, TimeTestError.boom)])
        scheduler.assertNoLeaks()
    }

    func testDelaySubscriptionSubscribesLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let res = scheduler.start { xs.delaySubscription(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(230, 250)])
        scheduler.assertNoLeaks()
    }

    func testTimeoutFailsWhenNothingArrivesInTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2)])
        let res = scheduler.start { xs.timeout(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(230, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        scheduler.assertNoLeaks()
    }

    func testTimeoutSwitchesToOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2)])
        let other = scheduler.createColdObservable([.next(5, 100), .completed(10)])
        let res = scheduler.start { xs.timeout(.seconds(20), other: other, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(235, 100), .completed(240)])
        XCTAssertEqual(other.subscriptions, [Subscription(230, 240)])
        scheduler.assertNoLeaks()
    }

    func testTakeForDurationCompletesOnTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
        scheduler.assertNoLeaks()
    }

    func testSkipForDurationDropsTheFirstElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3), .completed(250)])
        let res = scheduler.start { xs.skip(.seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 3), .completed(250)])
        scheduler.assertNoLeaks()
    }

    func testSampleEmitsTheLatestElementOnEachSamplerTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .next(235, 3), .completed(300)])
        let ticks = scheduler.createHotObservable([.next(220, "t"), .next(230, "t"), .next(240, "t"), .completed(400)])
        let res = scheduler.start { xs.sample(ticks) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(240, 3), .completed(400)])
        scheduler.assertNoLeaks()
    }

    func testBufferEmitsOnCountOrTimeSpan() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(280, 4), .completed(300),
        ])
        let res = scheduler.start { xs.buffer(timeSpan: .seconds(70), count: 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, [1, 2, 3]), .next(300, [4]), .completed(300)])
        scheduler.assertNoLeaks()
    }

    func testRecordedEventsPrintLikeRxTest() {
        XCTAssertEqual(String(reflecting: Recorded.next(210, 2)), "next(2) @ 210")
        XCTAssertEqual(String(reflecting: Subscription(200, 1000)), "(200: 1000)")
        XCTAssertEqual(String(reflecting: Subscription(200)), "(200: Infinity)")
        XCTAssertRecordedElements([.next(210, 1), .next(220, 2)], [1, 2])
    }

    func testAdvanceToRunsOnlyWhatIsDue() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let xs = scheduler.createHotObservable([.next(100, 1), .next(200, 2), .next(300, 3)])
        let subscription = xs.subscribe(observer)
        scheduler.advanceTo(250)
        XCTAssertEqual(observer.events, [.next(100, 1), .next(200, 2)])
        XCTAssertEqual(scheduler.clock, 250)
        subscription.dispose()
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(100, 1), .next(200, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 250)])
    }
}

enum TimeTestError: Error {
    case boom
}

/// The README's TestScheduler example, kept compiling and passing.
final class ReadmeExampleTests: XCTestCase {
    func testDebouncedSearch() {
        let scheduler = TestScheduler(initialClock: 0)
        let typed = scheduler.createHotObservable([.next(210, "a"), .next(215, "ab"), .completed(300)])
        let res = scheduler.start { typed.debounce(.seconds(10), scheduler: scheduler).map { $0.uppercased() } }
        XCTAssertEqual(res.events, [.next(225, "AB"), .completed(300)])
        XCTAssertEqual(typed.subscriptions, [Subscription(200, 300)])
        scheduler.assertNoLeaks()
    }
}

/// The time operators RxSwift gives every trait, on virtual time.
final class TraitTimeOperatorTests: XCTestCase {
    func testSingleDelay() {
        let scheduler = TestScheduler(initialClock: 0)
        let delayed = scheduler.start { Single.just(1).delay(.seconds(5), scheduler: scheduler).asObservable() }
        // RxSwift's timing: the completion that arrived with the element is sent by the next
        // drain, scheduled when the element went out (one tick later in virtual time).
        XCTAssertEqual(delayed.events, [.next(205, 1), .completed(206)])
        scheduler.assertNoLeaks()
    }

    func testSingleTimeoutSwitchesToTheOtherSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let late = scheduler.createColdObservable([.next(30, 7), .completed(30)])
        let timedOut = scheduler.start {
            late.asSingle().timeout(.seconds(10), other: .just(-1), scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(timedOut.events, [.next(210, -1), .completed(210)])
        scheduler.assertNoLeaks()
    }

    func testSingleTimerEmitsZeroThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let timer = scheduler.start { Single<Int>.timer(.seconds(3), scheduler: scheduler).asObservable() }
        XCTAssertEqual(timer.events, [.next(203, 0), .completed(203)])
        scheduler.assertNoLeaks()
    }
}
