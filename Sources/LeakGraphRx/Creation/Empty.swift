import LeakGraph

extension ObservableType {
    /// An observable that completes at once, without elements.
    public static func empty() -> Observable<Element> {
        Empty()
    }
}

private final class Empty<Element>: Producer<Element> {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        observer.on(.completed)
        return Disposables.create()
    }
}
