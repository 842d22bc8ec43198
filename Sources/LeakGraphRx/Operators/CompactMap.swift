import LeakGraph

extension ObservableType {
    /// Transforms each element and emits the results that are not nil; a thrown error
    /// terminates the sequence.
    ///
    /// ```swift
    /// Observable.of("1", "x", "3").compactMap { Int($0) }.subscribe(onNext: { print($0) })   // 1, 3
    /// ```
    @inlinable
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Observable<Result> {
        CompactMap(source: asObservable(), transform: transform)
    }
}

private final class CompactMapSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType {
    private let transform: (SourceElement) throws -> Observer.Element?

    init(transform: @escaping (SourceElement) throws -> Observer.Element?, observer: Observer, cancel: Cancelable) {
        self.transform = transform
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: SourceElement) {
        do {
            if let mapped = try transform(element) { forwardNext(mapped) }
        } catch {
            forwardError(error)
        }
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

// Usable from inline: the operator is inlined and specialised in the caller, whose concrete
// `CompactMap<A, B>` then needs no generic metadata lookup per call (~500 instructions).
@usableFromInline
final class CompactMap<SourceElement, Result>: Producer<Result> {
    private let source: Observable<SourceElement>
    private let transform: (SourceElement) throws -> Result?

    @usableFromInline
    init(source: Observable<SourceElement>, transform: @escaping (SourceElement) throws -> Result?) {
        self.source = source
        self.transform = transform
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Result {
        let sink = CompactMapSink(transform: transform, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
