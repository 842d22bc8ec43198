import LeakGraph

extension ObservableType {
    /// Emits each intermediate result of accumulating the elements, starting from `seed`.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).scan(0, accumulator: +).subscribe(onNext: { print($0) })   // 1, 3, 6
    /// ```
    @inlinable
    public func scan<Accumulate>(
        _ seed: Accumulate, accumulator: @escaping (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        Scan(source: asObservable(), seed: seed) { accumulate, element in
            accumulate = try accumulator(accumulate, element)
        }
    }

    /// Emits each intermediate result of accumulating the elements into `seed` in place (no
    /// copy of the accumulation per element).
    ///
    /// ```swift
    /// Observable.of(1, 2).scan(into: [Int]()) { $0.append($1) }.subscribe(onNext: { print($0) })   // [1], [1, 2]
    /// ```
    @inlinable
    public func scan<Accumulate>(
        into seed: Accumulate, accumulator: @escaping (inout Accumulate, Element) throws -> Void
    ) -> Observable<Accumulate> {
        Scan(source: asObservable(), seed: seed, accumulator: accumulator)
    }
}

private final class ScanSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ObserverType {
    private let accumulator: (inout Observer.Element, SourceElement) throws -> Void
    /// The accumulation. A stored property, so that discovery sees what it refers to; its
    /// exclusivity is not checked at run time (a tenth of the event), because the event grammar
    /// already serialises the accesses (one event at a time).
    @exclusivity(unchecked) private var accumulate: Observer.Element

    init(
        seed: Observer.Element, accumulator: @escaping (inout Observer.Element, SourceElement) throws -> Void,
        observer: Observer, cancel: Cancelable
    ) {
        accumulate = seed
        self.accumulator = accumulator
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: SourceElement) {
        do {
            try accumulator(&accumulate, element)
            forwardNext(accumulate)
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

// Usable from inline: the operators are inlined and specialised in the caller, whose concrete
// `Scan<A, B>` then needs no generic metadata lookup per call (~500 instructions).
@usableFromInline
final class Scan<SourceElement, Accumulate>: Producer<Accumulate> {
    private let source: Observable<SourceElement>
    private let seed: Accumulate
    private let accumulator: (inout Accumulate, SourceElement) throws -> Void

    @usableFromInline
    init(
        source: Observable<SourceElement>, seed: Accumulate,
        accumulator: @escaping (inout Accumulate, SourceElement) throws -> Void
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
