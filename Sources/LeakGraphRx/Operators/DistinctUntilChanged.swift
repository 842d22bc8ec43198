import LeakGraph

extension ObservableType where Element: Equatable {
    /// Drops elements equal to the previous one.
    ///
    /// ```swift
    /// Observable.of(1, 1, 2, 1).distinctUntilChanged().subscribe(onNext: { print($0) })   // 1, 2, 1
    /// ```
    public func distinctUntilChanged() -> Observable<Element> {
        distinctUntilChanged(==)
    }
}

extension ObservableType {
    /// Drops elements that `comparer` says equal the previous one.
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        DistinctUntilChanged(source: asObservable(), comparer: comparer)
    }

    /// Drops elements whose key equals the previous element's.
    public func distinctUntilChanged<Key: Equatable>(_ keySelector: @escaping (Element) throws -> Key)
        -> Observable<Element>
    {
        distinctUntilChanged { try keySelector($0) == keySelector($1) }
    }
}

private final class DistinctUntilChangedSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let comparer: (Element, Element) throws -> Bool
    private var previous: Element?

    init(comparer: @escaping (Element, Element) throws -> Bool, observer: Observer, cancel: Cancelable) {
        self.comparer = comparer
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            do {
                if let previous, try comparer(previous, element) { return }
                previous = element
                forwardOn(event)
            } catch {
                forwardTerminalAndDispose(.error(error))
            }
        case .error, .completed:
            forwardTerminalAndDispose(event)
        }
    }
}

private final class DistinctUntilChanged<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let comparer: (Element, Element) throws -> Bool

    init(source: Observable<Element>, comparer: @escaping (Element, Element) throws -> Bool) {
        self.source = source
        self.comparer = comparer
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DistinctUntilChangedSink(comparer: comparer, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
