import LeakGraph

extension ObservableType {
    /// Emits each intermediate result of accumulating the elements, starting from `seed`.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).scan(0, accumulator: +).subscribe(onNext: { print($0) })   // 1, 3, 6
    /// ```
    public func scan<Accumulate>(
        _ seed: Accumulate, accumulator: @escaping (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        Scan(source: asObservable(), seed: seed, accumulator: accumulator)
    }
}

private final class ScanSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType {
    private let accumulator: (Observer.Element, SourceElement) throws -> Observer.Element
    private var accumulate: Observer.Element

    init(
        seed: Observer.Element, accumulator: @escaping (Observer.Element, SourceElement) throws -> Observer.Element,
        observer: Observer, cancel: Cancelable
    ) {
        self.accumulate = seed
        self.accumulator = accumulator
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            do {
                accumulate = try accumulator(accumulate, element)
                forwardNext(accumulate)
            } catch {
                forwardTerminalAndDispose(.error(error))
            }
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed: forwardTerminalAndDispose(.completed)
        }
    }
}

private final class Scan<SourceElement, Accumulate>: Producer<Accumulate> {
    private let source: Observable<SourceElement>
    private let seed: Accumulate
    private let accumulator: (Accumulate, SourceElement) throws -> Accumulate

    init(
        source: Observable<SourceElement>, seed: Accumulate,
        accumulator: @escaping (Accumulate, SourceElement) throws -> Accumulate
    ) {
        self.source = source
        self.seed = seed
        self.accumulator = accumulator
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Accumulate {
        let sink = ScanSink(seed: seed, accumulator: accumulator, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
