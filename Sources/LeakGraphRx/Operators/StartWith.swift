import LeakGraph

extension ObservableType {
    /// Emits `elements` first, then the source's elements.
    ///
    /// ```swift
    /// Observable.of(3).startWith(1, 2).subscribe(onNext: { print($0) })   // 1, 2, 3
    /// ```
    public func startWith(_ elements: Element...) -> Observable<Element> {
        StartWith(source: asObservable(), elements: elements)
    }
}

private final class StartWith<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let elements: [Element]

    init(source: Observable<Element>, elements: [Element]) {
        self.source = source
        self.elements = elements
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        for element in elements { observer.on(.next(element)) }
        return source.subscribe(observer)
    }
}
