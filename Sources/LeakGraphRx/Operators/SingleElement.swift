import LeakGraph

extension ObservableType {
    /// Emits the source's only element and completes; fails with `RxError.noElements` when it
    /// completes empty and with `RxError.moreThanOneElement` at a second element.
    ///
    /// ```swift
    /// Observable.of(7).single().subscribe(onNext: { print($0) })   // 7
    /// ```
    public func single() -> Observable<Element> {
        SingleElement(source: asObservable(), predicate: nil)
    }

    /// ``single()`` over the elements `predicate` accepts (the others are dropped).
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).single { $0 == 2 }.subscribe(onNext: { print($0) })   // 2
    /// ```
    public func single(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        SingleElement(source: asObservable(), predicate: predicate)
    }
}

private final class SingleElementSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let predicate: ((Element) throws -> Bool)?
    private var seenElement = false

    init(predicate: ((Element) throws -> Bool)?, observer: Observer, cancel: Cancelable) {
        self.predicate = predicate
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            do {
                guard try predicate?(element) ?? true else { return }
            } catch {
                return forwardError(error)
            }
            // As RxSwift: the element is emitted at once, the second one is the error.
            guard !seenElement else { return forwardError(RxError.moreThanOneElement) }
            seenElement = true
            forwardNext(element)
        case .error: forwardTerminalAndDispose(event)
        case .completed:
            if seenElement { forwardTerminalAndDispose(.completed) } else { forwardError(RxError.noElements) }
        }
    }
}

private final class SingleElement<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let predicate: ((Element) throws -> Bool)?

    init(source: Observable<Element>, predicate: ((Element) throws -> Bool)?) {
        self.source = source
        self.predicate = predicate
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SingleElementSink(predicate: predicate, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
