import LeakGraphRx

/// An observer that records every event it receives with the test scheduler's time.
///
/// ```swift
/// let observer = scheduler.createObserver(Int.self)
/// xs.subscribe(observer)
/// scheduler.start()
/// XCTAssertEqual(observer.events, [.next(210, 2), .completed(300)])
/// ```
///
/// Not a tracked object: it is the test's own probe and outlives the run on purpose.
public final class TestableObserver<Element>: ObserverType {
    private let scheduler: TestScheduler

    /// The events received, with their times.
    public private(set) var events: [Recorded<Event<Element>>] = []

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// Records `event` at the scheduler's current time.
    public func on(_ event: Event<Element>) {
        events.append(Recorded(time: scheduler.clock, value: event))
    }
}
