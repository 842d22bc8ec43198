import LeakGraph

// The operators that turn an observable into a trait's source: exactly one element
// (`asSingle`), at most one (`asMaybe`), the first one or nil (`first`), all of them at the end
// (`toArray`). Each completes, fails and disposes as RxSwift's does.

private final class AsSingleSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let allowsEmpty: Bool
    private var element: Element?

    init(allowsEmpty: Bool, observer: Observer, cancel: Cancelable) {
        self.allowsEmpty = allowsEmpty
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let next):
            guard element == nil else { return forwardError(RxError.moreThanOneElement) }
            element = next
        case .error: forwardTerminalAndDispose(event)
        case .completed:
            if let element {
                forwardNext(element)
                forwardTerminalAndDispose(.completed)
            } else if allowsEmpty {
                forwardTerminalAndDispose(.completed)
            } else {
                forwardError(RxError.noElements)
            }
        }
    }
}

/// `asSingle()` (exactly one element) and `asMaybe()` (at most one).
final class AsSingle<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let allowsEmpty: Bool

    init(source: Observable<Element>, allowsEmpty: Bool) {
        self.source = source
        self.allowsEmpty = allowsEmpty
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = AsSingleSink(allowsEmpty: allowsEmpty, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}

private final class FirstSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == SourceElement? {
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            forwardNext(element)
            forwardTerminalAndDispose(.completed)
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed:
            forwardNext(nil)
            forwardTerminalAndDispose(.completed)
        }
    }
}

/// `first()`: the first element, or nil when the source completes empty.
final class First<SourceElement>: Producer<SourceElement?> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == SourceElement? {
        let sink = FirstSink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}

private final class ToArraySink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == [SourceElement] {
    private var elements: [SourceElement] = []

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element): elements.append(element)
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed:
            forwardNext(elements)
            forwardTerminalAndDispose(.completed)
        }
    }
}

/// `toArray()`: every element, in one array, when the source completes.
final class ToArray<SourceElement>: Producer<[SourceElement]> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == [SourceElement] {
        let sink = ToArraySink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
