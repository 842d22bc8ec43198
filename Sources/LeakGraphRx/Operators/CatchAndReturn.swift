import LeakGraph

extension ObservableType {
    /// Replaces an error with `element` followed by completion.
    ///
    /// ```swift
    /// Observable<Int>.error(MyError()).catchAndReturn(0).subscribe { print($0) }   // next(0), completed
    /// ```
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        CatchAndReturn(source: asObservable(), element: element)
    }
}

private final class CatchAndReturnSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let element: Element

    init(element: Element, observer: Observer, cancel: Cancelable) {
        self.element = element
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .error:
            forwardNext(element)
            forwardTerminalAndDispose(.completed)
        case .completed: forwardTerminalAndDispose(event)
        }
    }
}

private final class CatchAndReturn<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let element: Element

    init(source: Observable<Element>, element: Element) {
        self.source = source
        self.element = element
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = CatchAndReturnSink(element: element, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
