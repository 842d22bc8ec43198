import LeakGraph

extension ObservableType {
    /// An observable that never emits anything and never terminates.
    ///
    /// It keeps no reference to its subscribers, so subscribing to it leaks nothing.
    public static func never() -> Observable<Element> {
        NeverObservable()
    }
}

private final class NeverObservable<Element>: Producer<Element> {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        Disposables.create()
    }
}
