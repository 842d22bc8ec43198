import LeakGraph

// On the protocol, as in RxSwift: `Self.create` in an extension of `ObservableType` compiles too.
extension ObservableType {
    /// An observable that calls `factory` for each subscriber and subscribes to its result; a
    /// thrown error is sent as `.error`.
    public static func deferred(_ factory: @escaping () throws -> Observable<Element>) -> Observable<Element> {
        Deferred(factory)
    }
}

private final class DeferredSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    func run(_ factory: () throws -> Observable<Element>) -> Disposable {
        do {
            return try factory().subscribe(self)
        } catch {
            forwardTerminalAndDispose(.error(error))
            return Disposables.create()
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .error, .completed: forwardTerminalAndDispose(event)
        }
    }
}

private final class Deferred<Element>: Producer<Element> {
    let factory: () throws -> Observable<Element>

    init(_ factory: @escaping () throws -> Observable<Element>) {
        self.factory = factory
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DeferredSink(observer: observer, cancel: cancel)
        return (sink, sink.run(factory))
    }
}
