import LeakGraph
import LeakGraphRx
import LeakGraphRxCocoa
import XCTest

/// A view model written with RxCocoa's traits, as view models are.
private final class ProfileViewModel: TrackedObject {
    let name = BehaviorRelay(value: "Ada")
    let saved = PublishRelay<Void>()
    let bag = DisposeBag()
    var title = ""
    var saves = 0

    /// The classic leak: the drive's closure captures `self`, and nothing disposes it.
    func bindStrongly() {
        _ = name.asDriver().map { "Hello, \($0)" }.drive(onNext: { self.title = $0 })
        _ = saved.asSignal().emit(onNext: { self.saves += 1 })
    }

    /// The fix: `[weak self]` and the bag the view model owns.
    func bindWeakly() {
        name.asDriver().map { "Hello, \($0)" }.drive(onNext: { [weak self] in self?.title = $0 }).disposed(by: bag)
        saved.asSignal().emit(onNext: { [weak self] in self?.saves += 1 }).disposed(by: bag)
    }
}

/// Driver and Signal (LeakGraphRxCocoa): what they deliver, and their leak shapes. XCTest: it runs
/// each test on the main thread, where a driver is driven.
final class DriverSignalTests: XCTestCase {
    /// Delivers on a virtual-time scheduler the test runs (`start()`), instead of the main queue.
    private static func onTestScheduler(_ body: (HistoricalScheduler) -> Void) {
        let scheduler = HistoricalScheduler()
        SharingScheduler.mock(scheduler: scheduler) { body(scheduler) }
    }

    /// A driver replays its latest element to each new subscriber, turns an error into its fallback, and
    /// shares one subscription.
    func testDriverDelivers() {
        Self.onTestScheduler { scheduler in
            let source = PublishSubject<Int>()
            var subscriptions = 0
            let driver = source.do(onSubscribe: { subscriptions += 1 }).asDriver(onErrorJustReturn: -1)
            var first: [Int] = []
            var second: [Int] = []
            let a = driver.drive(onNext: { first.append($0) })
            source.onNext(1)
            scheduler.start()
            let b = driver.drive(onNext: { second.append($0) })
            scheduler.start()
            source.onError(TestError())
            scheduler.start()
            XCTAssertEqual(first, [1, -1])
            XCTAssertEqual(second, [1, -1])
            XCTAssertEqual(subscriptions, 1)
            a.dispose()
            b.dispose()
        }
    }

    /// A signal replays nothing: a late subscriber gets only what comes after it.
    func testSignalReplaysNothing() {
        Self.onTestScheduler { scheduler in
            let relay = PublishRelay<String>()
            var early: [String] = []
            var late: [String] = []
            let signal = relay.asSignal()
            let a = signal.emit(onNext: { early.append($0) })
            relay.accept("first")
            scheduler.start()
            let b = signal.emit(onNext: { late.append($0) })
            relay.accept("second")
            scheduler.start()
            XCTAssertEqual(early, ["first", "second"])
            XCTAssertEqual(late, ["second"])
            a.dispose()
            b.dispose()
        }
    }

    /// Drive and emit closures that capture the view model, never disposed, are a leaked cycle through it.
    func testStrongDriveLeaks() {
        Self.onTestScheduler { scheduler in
            let outcome = leakingLifecycle {
                ProfileViewModel().bindStrongly()
                scheduler.start()
            }
            let cycles = outcome.leakedCycles.filter { outcome.memberTypes($0).contains("ProfileViewModel") }
            XCTAssertFalse(cycles.isEmpty, outcome.dump)
            XCTAssertTrue(outcome.report.leakedObjectIDs.isSuperset(of: outcome.alive.map(\.id)), outcome.dump)
        }
    }

    /// [weak self] and the view model's own bag: nothing is left.
    func testWeakDriveIsClean() {
        Self.onTestScheduler { scheduler in
            let outcome = lifecycle {
                let model = ProfileViewModel()
                model.bindWeakly()
                scheduler.start()
                withExtendedLifetime(model) {}
            }
            scheduler.start()
            XCTAssertEqual(outcome.aliveTypes, [], outcome.dump)
        }
    }
}
