import Foundation
import LeakGraph
import LeakGraphRx
import LeakGraphTesting

/// A virtual-time scheduler for tests, API-compatible with RxTest's: scripted hot and cold
/// observables, recording observers, and `start` to run a subscription over virtual time.
///
/// And one thing RxTest never had: every `start` runs in a leak scope, so after it the scheduler
/// can check that the run released everything it created (``assertNoLeaks(file:line:)`` in
/// XCTest, ``expectNoLeaks(sourceLocation:)`` or the ``LeakGraphRxTest/Testing/Trait/checksTestSchedulerLeaks``
/// trait in Swift Testing), with the same leak trace as `.detectLeaks`.
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(300)])
/// let res = scheduler.start { xs.map { $0 * 10 } }
/// XCTAssertEqual(res.events, [.next(210, 20), .completed(300)])
/// XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
/// scheduler.assertNoLeaks()
/// ```
public class TestScheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>, @unchecked Sendable {
    // @unchecked Sendable: as VirtualTimeScheduler; `lastRun` is only touched by the thread that
    // drives the clock.
    /// The times `start(_:)` uses by default.
    public enum Defaults {
        /// When the observable is created.
        public static let created = 100
        /// When it is subscribed to.
        public static let subscribed = 200
        /// When the subscription is disposed.
        public static let disposed = 1000
    }

    private let simulateProcessingDelay: Bool
    /// The leak scope of the last `start` run, for the leak check.
    private var lastRun: LeakScope?

    /// Whether a `start` run happened, so that a leak check has something to check.
    var hasStartRun: Bool { lastRun != nil }

    /// A scheduler whose clock starts at `initialClock`; a tick is `resolution` seconds. With
    /// `simulateProcessingDelay`, work scheduled for now or the past runs one tick later.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        self.simulateProcessingDelay = simulateProcessingDelay
        super.init(initialClock: initialClock, converter: TestSchedulerVirtualTimeConverter(resolution: resolution))
    }

    /// A hot observable sending `events` at their absolute times.
    public func createHotObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        HotObservable(testScheduler: self, recordedEvents: events)
    }

    /// A cold observable sending `events` at times relative to each subscription.
    public func createColdObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        ColdObservable(testScheduler: self, recordedEvents: events)
    }

    /// An observer recording what it receives, with times.
    public func createObserver<Element>(_: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Runs `action` at virtual time `time`.
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) {
        _ = scheduleAbsoluteVirtual((), time: time) { _ in
            action()
            return Disposables.create()
        }
    }

    /// Moves work scheduled for now or the past to the next tick (with `simulateProcessingDelay`).
    public override func adjustScheduledTime(_ time: Int) -> Int {
        time <= clock ? clock + (simulateProcessingDelay ? 1 : 0) : time
    }

    /// Creates the observable at `created`, subscribes at `subscribed`, disposes at `disposed`,
    /// runs the clock, and returns what the subscription received.
    public func start<Element, OutputSequence: ObservableConvertibleType>(
        created: TestTime, subscribed: TestTime, disposed: TestTime, create: @escaping () -> OutputSequence
    ) -> TestableObserver<Element> where OutputSequence.Element == Element {
        let observer = createObserver(Element.self)
        let (scope, _) = LeakScope.run {
            var source: Observable<Element>?
            var subscription: Disposable?
            scheduleAt(created) { source = create().asObservable() }
            scheduleAt(subscribed) { subscription = source?.subscribe(observer) }
            scheduleAt(disposed) {
                subscription?.dispose()
                // What the test created is the run's: nothing of it is kept here.
                subscription = nil
                source = nil
            }
            start()
        }
        lastRun = scope
        if let location = TestSchedulerLeakCheckTrait.checkedTestLocation {
            expectNoLeaks(sourceLocation: location)
        }
        return observer
    }

    /// ``start(created:subscribed:disposed:create:)`` created at 100, subscribed at 200.
    public func start<Element, OutputSequence: ObservableConvertibleType>(
        disposed: TestTime, create: @escaping () -> OutputSequence
    ) -> TestableObserver<Element> where OutputSequence.Element == Element {
        start(created: Defaults.created, subscribed: Defaults.subscribed, disposed: disposed, create: create)
    }

    /// ``start(created:subscribed:disposed:create:)`` at 100, 200 and 1000.
    public func start<Element, OutputSequence: ObservableConvertibleType>(
        _ create: @escaping () -> OutputSequence
    ) -> TestableObserver<Element> where OutputSequence.Element == Element {
        start(
            created: Defaults.created, subscribed: Defaults.subscribed, disposed: Defaults.disposed, create: create)
    }

    /// Checks that the last `start` run released every tracked object it created (once
    /// `options.gracePeriod` has passed): the findings, with the leak trace, or nil.
    ///
    /// A check before any `start` run cannot check anything and says so in the outcome's notes.
    public func leakCheck(options: LeakCheckOptions = LeakCheckOptions()) -> LeakCheckOutcome {
        leakCheck(options: options, name: "TestScheduler.start")
    }

    /// ``leakCheck(options:)`` with the artifacts (`<name>.dot`, `.svg`, `.html`) named `name`.
    func leakCheck(options: LeakCheckOptions, name: String) -> LeakCheckOutcome {
        guard let lastRun else {
            return LeakCheckOutcome(
                findings: nil,
                notes: [
                    "TestScheduler leak check: no start(…) run to check (the check covers what a start run created)"
                ])
        }
        return LeakCheck.runSynchronously(scope: lastRun, name: name, options: options)
    }
}
