import LeakGraph
import LeakGraphRx

/// An observable whose events are scripted at virtual times, and which records when it was
/// subscribed to and disposed. Made by ``TestScheduler/createHotObservable(_:)`` and
/// ``TestScheduler/createColdObservable(_:)``.
///
/// Tracked: it reports the observers subscribed to it (`observers` edges), so a subscription
/// the test never disposed shows up in the graph as held by it.
public class TestableObservable<Element>: TrackedObject, ObservableType {
    /// The subscriptions so far: when each was made and when it was disposed.
    public internal(set) var subscriptions: [Subscription] = []
    /// The scripted events.
    public internal(set) var recordedEvents: [Recorded<Event<Element>>]
    let testScheduler: TestScheduler

    init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.testScheduler = testScheduler
        self.recordedEvents = recordedEvents
        super.init()
    }

    /// Subscribes `observer`; each kind of test observable implements it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        fatalError("TestableObservable.subscribe is abstract")
    }

    /// Records a subscription now and returns its index.
    func recordSubscription() -> Int {
        subscriptions.append(Subscription(testScheduler.clock))
        return subscriptions.count - 1
    }

    /// Records the disposal of subscription `index` now.
    func recordUnsubscription(_ index: Int) {
        subscriptions[index] = Subscription(subscriptions[index].subscribe, testScheduler.clock)
    }
}

extension EdgeLabel {
    /// A test observable's subscribed observers.
    static let testObservers = EdgeLabel("observers")
}

/// The observer as a tracked object, when it is one.
func trackedObserver<Observer>(_ observer: Observer) -> TrackedObject? {
    observer as AnyObject as? TrackedObject
}
