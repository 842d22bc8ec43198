import LeakGraph

/// A value that holds an ``Event``: what `dematerialize()` turns back into events.
public protocol EventConvertible<Element> {
    /// The element type of the event.
    associatedtype Element
    /// The event.
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    /// The event itself.
    public var event: Event<Element> { self }
}

extension ObservableType {
    /// Turns every event, the terminal one included, into an element, then completes.
    ///
    /// ```swift
    /// Observable.of(1).materialize().subscribe(onNext: { print($0) })   // next(1), completed
    /// ```
    public func materialize() -> Observable<Event<Element>> {
        Materialize(source: asObservable())
    }
}

extension ObservableType where Element: EventConvertible {
    /// Turns elements that are events back into events: the inverse of ``materialize()``.
    ///
    /// ```swift
    /// Observable.of(1).materialize().dematerialize().subscribe(onNext: { print($0) })   // 1
    /// ```
    public func dematerialize() -> Observable<Element.Element> {
        Dematerialize(source: asObservable())
    }
}

private final class MaterializeSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == Event<SourceElement> {
    func on(_ event: Event<SourceElement>) {
        forwardNext(event)
        if event.isStopEvent { forwardTerminalAndDispose(.completed) }
    }
}

private final class Materialize<SourceElement>: Producer<Event<SourceElement>> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Event<SourceElement> {
        let sink = MaterializeSink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}

private final class DematerializeSink<SourceElement: EventConvertible, Observer: ObserverType>: Sink<Observer>,
    ObserverType
where Observer.Element == SourceElement.Element {
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            let inner = element.event
            if case .next(let value) = inner { forwardNext(value) } else { forwardTerminalAndDispose(inner) }
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

private final class Dematerialize<SourceElement: EventConvertible>: Producer<SourceElement.Element> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == SourceElement.Element {
        let sink = DematerializeSink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
