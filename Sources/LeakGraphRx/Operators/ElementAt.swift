import LeakGraph

extension ObservableType {
    /// Emits only the element at `index` (from 0), then completes; fails with
    /// `RxError.argumentOutOfRange` when the source completes first. `index` must not be negative.
    ///
    /// ```swift
    /// Observable.of("a", "b", "c").element(at: 1).subscribe(onNext: { print($0) })   // b
    /// ```
    public func element(at index: Int) -> Observable<Element> {
        ElementAt(source: asObservable(), index: index)
    }

    /// RxSwift 5's name of ``element(at:)``.
    @available(*, deprecated, renamed: "element(at:)")
    public func elementAt(_ index: Int) -> Observable<Element> {
        element(at: index)
    }
}

private final class ElementAtSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private var remaining: Int

    init(index: Int, observer: Observer, cancel: Cancelable) {
        remaining = index
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if remaining == 0 {
                forwardNext(element)
                forwardTerminalAndDispose(.completed)
            }
            remaining -= 1
        case .error: forwardTerminalAndDispose(event)
        case .completed: forwardError(RxError.argumentOutOfRange)
        }
    }
}

private final class ElementAt<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let index: Int

    init(source: Observable<Element>, index: Int) {
        precondition(index >= 0, "element(at:): index can't be negative")
        self.source = source
        self.index = index
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ElementAtSink(index: index, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
