import LeakGraph

extension ObservableType {
    /// An observable that terminates at once with `error`.
    public static func error(_ error: Swift.Error) -> Observable<Element> {
        ErrorProducer(error)
    }
}

private final class ErrorProducer<Element>: Producer<Element> {
    let error: Swift.Error

    init(_ error: Swift.Error) {
        self.error = error
        super.init()
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        observer.on(.error(error))
        return Disposables.create()
    }
}
