import LeakGraph

extension ObservableType {
    /// Accumulates every element from `seed` and, when the source completes, emits
    /// `mapResult` of the accumulation, then completes. A thrown error terminates the sequence.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).reduce(0, accumulator: +, mapResult: { "sum \($0)" })   // "sum 6"
    /// ```
    public func reduce<A, Result>(
        _ seed: A, accumulator: @escaping (A, Element) throws -> A, mapResult: @escaping (A) throws -> Result
    ) -> Observable<Result> {
        Reduce(source: asObservable(), seed: seed, accumulator: accumulator, mapResult: mapResult)
    }

    /// Accumulates every element from `seed` and emits the result when the source completes.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).reduce(0, accumulator: +).subscribe(onNext: { print($0) })   // 6
    /// ```
    public func reduce<A>(_ seed: A, accumulator: @escaping (A, Element) throws -> A) -> Observable<A> {
        Reduce(source: asObservable(), seed: seed, accumulator: accumulator, mapResult: { $0 })
    }
}

private final class ReduceSink<SourceElement, Accumulate, Observer: ObserverType>: Sink<Observer>, ObserverType {
    private var accumulation: Accumulate
    private let accumulator: (Accumulate, SourceElement) throws -> Accumulate
    private let mapResult: (Accumulate) throws -> Observer.Element

    init(
        seed: Accumulate, accumulator: @escaping (Accumulate, SourceElement) throws -> Accumulate,
        mapResult: @escaping (Accumulate) throws -> Observer.Element, observer: Observer, cancel: Cancelable
    ) {
        accumulation = seed
        self.accumulator = accumulator
        self.mapResult = mapResult
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            do {
                accumulation = try accumulator(accumulation, element)
            } catch {
                forwardError(error)
            }
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed:
            do {
                let result = try mapResult(accumulation)
                forwardNext(result)
                forwardTerminalAndDispose(.completed)
            } catch {
                forwardError(error)
            }
        }
    }
}

private final class Reduce<SourceElement, Accumulate, Result>: Producer<Result> {
    private let source: Observable<SourceElement>
    private let seed: Accumulate
    private let accumulator: (Accumulate, SourceElement) throws -> Accumulate
    private let mapResult: (Accumulate) throws -> Result

    init(
        source: Observable<SourceElement>, seed: Accumulate,
        accumulator: @escaping (Accumulate, SourceElement) throws -> Accumulate,
        mapResult: @escaping (Accumulate) throws -> Result
    ) {
        self.source = source
        self.seed = seed
        self.accumulator = accumulator
        self.mapResult = mapResult
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Result {
        let sink = ReduceSink(
            seed: seed, accumulator: accumulator, mapResult: mapResult, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
