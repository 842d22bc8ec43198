import LeakGraphRx

/// A test observable that sends its events to each subscriber at times relative to that
/// subscription.
final class ColdObservable<Element>: TestableObservable<Element> {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let index = recordSubscription()
        let disposed = DisposedFlag()
        for recorded in recordedEvents {
            _ = testScheduler.scheduleRelativeVirtual((), dueTime: recorded.time) { _ in
                if !disposed.value { observer.on(recorded.value) }
                return Disposables.create()
            }
        }
        return Disposables.create { [weak self] in
            disposed.value = true
            self?.recordUnsubscription(index)
        }
    }
}

/// Whether a cold subscription was disposed (read and written on the scheduler's thread).
private final class DisposedFlag {
    var value = false
}
