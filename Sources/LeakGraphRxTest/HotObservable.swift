import LeakGraphRx

/// A test observable that sends its events at their absolute times to whoever is subscribed then.
final class HotObservable<Element>: TestableObservable<Element> {
    /// In subscription order, as RxTest's bag keeps them.
    private var observers: [(key: Int, on: (Event<Element>) -> Void)] = []
    private var nextKey = 0

    override init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(testScheduler: testScheduler, recordedEvents: recordedEvents)
        for recorded in recordedEvents {
            // Strong, as in RxTest: a hot observable made inside `start`'s factory lives until its
            // scripted events are sent (the scheduler drops each action once it ran).
            testScheduler.scheduleAt(recorded.time) {
                for observer in self.observers { observer.on(recorded.value) }
            }
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let key = nextKey
        nextKey += 1
        observers.append((key, observer.on))
        let tracked = trackedObserver(observer)
        if let tracked { addTrackedEdge(to: tracked, label: .testObservers) }
        let index = recordSubscription()
        return Disposables.create { [weak self] in
            guard let self else { return }
            let removed = self.observers.firstIndex { $0.key == key }.map { self.observers.remove(at: $0) }
            if let tracked { self.removeTrackedEdge(to: tracked, label: .testObservers) }
            self.recordUnsubscription(index)
            _ = removed
        }
    }
}
