import LeakGraph

extension ObservableType where Element: Equatable {
    /// Drops elements equal to the previous one.
    ///
    /// ```swift
    /// Observable.of(1, 1, 2, 1).distinctUntilChanged().subscribe(onNext: { print($0) })   // 1, 2, 1
    /// ```
    public func distinctUntilChanged() -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: { $0 == $1 })
    }
}

extension ObservableType {
    /// Drops elements whose key equals the previous emitted element's key.
    ///
    /// ```swift
    /// names.distinctUntilChanged { $0.count }.subscribe(onNext: { print($0) })
    /// ```
    public func distinctUntilChanged<Key: Equatable>(_ keySelector: @escaping (Element) throws -> Key)
        -> Observable<Element>
    {
        distinctUntilChanged(keySelector, comparer: { $0 == $1 })
    }

    /// Drops elements that `comparer` says equal the previous emitted element (called with the
    /// previous element first).
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: comparer)
    }

    /// Drops elements whose key `comparer` says equals the previous emitted element's key. The
    /// key is computed once per element.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping (Element) throws -> Key, comparer: @escaping (Key, Key) throws -> Bool
    ) -> Observable<Element> {
        DistinctUntilChanged(source: asObservable(), keySelector: keySelector, comparer: comparer)
    }

    /// Drops elements whose property at `keyPath` equals the previous emitted element's.
    ///
    /// ```swift
    /// users.distinctUntilChanged(at: \.id).subscribe(onNext: { print($0) })
    /// ```
    public func distinctUntilChanged<Property: Equatable>(at keyPath: KeyPath<Element, Property>)
        -> Observable<Element>
    {
        distinctUntilChanged({ $0[keyPath: keyPath] }, comparer: { $0 == $1 })
    }
}

private final class DistinctUntilChangedSink<Key, Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let keySelector: (Element) throws -> Key
    private let comparer: (Key, Key) throws -> Bool
    /// Unchecked exclusivity: events come one at a time (the event grammar), which already
    /// serialises every access.
    @exclusivity(unchecked) private var currentKey: Key?

    init(
        keySelector: @escaping (Element) throws -> Key, comparer: @escaping (Key, Key) throws -> Bool,
        observer: Observer, cancel: Cancelable
    ) {
        self.keySelector = keySelector
        self.comparer = comparer
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: Element) {
        do {
            let key = try keySelector(element)
            if let currentKey, try comparer(currentKey, key) { return }
            currentKey = key
            forwardNext(element)
        } catch {
            forwardError(error)
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error, .completed:
            forwardTerminalAndDispose(event)
        }
    }
}

private final class DistinctUntilChanged<Element, Key>: Producer<Element> {
    private let source: Observable<Element>
    private let keySelector: (Element) throws -> Key
    private let comparer: (Key, Key) throws -> Bool

    init(
        source: Observable<Element>, keySelector: @escaping (Element) throws -> Key,
        comparer: @escaping (Key, Key) throws -> Bool
    ) {
        self.source = source
        self.keySelector = keySelector
        self.comparer = comparer
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DistinctUntilChangedSink(
            keySelector: keySelector, comparer: comparer, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
