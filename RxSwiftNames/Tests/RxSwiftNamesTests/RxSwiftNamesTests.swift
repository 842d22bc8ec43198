// Code as it is written against RxSwift, RxRelay, RxTest and RxBlocking — their imports, their
// module qualifiers, XCTest — built against LeakGraph with no line changed: only the package
// that provides those modules differs.
import RxBlocking
import RxRelay
import RxSwift
import RxTest
import XCTest

final class RxSwiftNamesTests: XCTestCase {
    func testModuleQualifiedNamesResolve() throws {
        let numbers: RxSwift.Observable<Int> = RxSwift.Observable.of(1, 2, 3)
        let doubled = try numbers.map { $0 * 2 }.toBlocking().toArray()
        XCTAssertEqual(doubled, [2, 4, 6])
        let relay = RxRelay.BehaviorRelay(value: "first")
        relay.accept("second")
        XCTAssertEqual(relay.value, "second")
    }

    func testVirtualTimeAsRxTestWritesIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(240, 3), .completed(300),
        ])
        let observer = scheduler.start { source.filter { $0 > 2 }.map { $0 * 10 } }
        XCTAssertEqual(observer.events, [.next(240, 30), .completed(300)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 300)])
    }

    func testDisposeBagEndsTheSubscriptionsItHolds() {
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        var bag: DisposeBag? = DisposeBag()
        subject.subscribe(onNext: { received.append($0) }).disposed(by: bag!)
        subject.onNext(1)
        bag = nil
        subject.onNext(2)
        XCTAssertEqual(received, [1])
        XCTAssertFalse(subject.hasObservers)
    }
}
