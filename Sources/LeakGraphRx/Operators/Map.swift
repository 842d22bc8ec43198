import LeakGraph

extension ObservableType {
    /// Transforms each element with `transform`; a thrown error terminates the sequence.
    ///
    /// ```swift
    /// Observable.of(1, 2).map { $0 * 10 }.subscribe(onNext: { print($0) })   // 10, 20
    /// ```
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        Map(source: asObservable(), transform: transform)
    }
}

private final class MapSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType {
    private let transform: (SourceElement) throws -> Observer.Element

    init(transform: @escaping (SourceElement) throws -> Observer.Element, observer: Observer, cancel: Cancelable) {
        self.transform = transform
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: SourceElement) {
        let result: Observer.Element
        do {
            result = try transform(element)
        } catch {
            return forwardError(error)
        }
        forwardNext(result)
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            onNext(element)
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

@usableFromInline
final class Map<SourceElement, Result>: Producer<Result> {
    private let source: Observable<SourceElement>
    private let transform: (SourceElement) throws -> Result

    @usableFromInline
    init(source: Observable<SourceElement>, transform: @escaping (SourceElement) throws -> Result) {
        self.source = source
        self.transform = transform
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Result {
        let sink = MapSink(transform: transform, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
