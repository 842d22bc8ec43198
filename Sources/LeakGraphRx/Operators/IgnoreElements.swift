import LeakGraph

extension ObservableType {
    /// Drops every element and forwards only the completion or the error.
    ///
    /// ```swift
    /// Observable.of(1, 2).ignoreElements().subscribe(onCompleted: { print("done") })   // done
    /// ```
    public func ignoreElements() -> Observable<Never> {
        IgnoreElements(source: asObservable())
    }
}

private final class IgnoreElementsSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == Never {
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next: break
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

private final class IgnoreElements<SourceElement>: Producer<Never> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Never {
        let sink = IgnoreElementsSink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
