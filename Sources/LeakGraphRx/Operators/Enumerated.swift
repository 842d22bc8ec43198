import LeakGraph

extension ObservableType {
    /// Pairs each element with its index, from 0.
    ///
    /// ```swift
    /// Observable.of("a", "b").enumerated().subscribe(onNext: { print($0.index, $0.element) })   // 0 a, 1 b
    /// ```
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        Enumerated(source: asObservable())
    }
}

private final class EnumeratedSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == (index: Int, element: SourceElement) {
    /// Unchecked exclusivity: events come one at a time (the event grammar), which already
    /// serialises every access.
    @exclusivity(unchecked) private var index = 0

    func onNext(_ element: SourceElement) {
        let (next, overflow) = index.addingReportingOverflow(1)
        guard !overflow else { return forwardError(RxError.overflow) }
        let current = index
        index = next
        forwardNext((index: current, element: element))
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

private final class Enumerated<SourceElement>: Producer<(index: Int, element: SourceElement)> {
    private let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == (index: Int, element: SourceElement) {
        let sink = EnumeratedSink<SourceElement, Observer>(observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
