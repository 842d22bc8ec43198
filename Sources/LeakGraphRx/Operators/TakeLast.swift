import LeakGraph

extension ObservableType {
    /// Emits the last `count` elements when the source completes (they are held until then).
    /// `count` must not be negative.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).takeLast(2).subscribe(onNext: { print($0) })   // 2, 3
    /// ```
    public func takeLast(_ count: Int) -> Observable<Element> {
        TakeLast(source: asObservable(), count: count)
    }
}

private final class TakeLastSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let count: Int
    /// The last elements, oldest at `oldest` once the ring is full: O(1) per element.
    private var ring: [Element] = []
    private var oldest = 0

    init(count: Int, observer: Observer, cancel: Cancelable) {
        self.count = count
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard count > 0 else { return }
            if ring.count < count {
                ring.append(element)
            } else {
                ring[oldest] = element
                oldest = (oldest + 1) % count
            }
        case .error: forwardTerminalAndDispose(event)
        case .completed:
            for offset in 0..<ring.count { forwardNext(ring[(oldest + offset) % ring.count]) }
            ring = []
            forwardTerminalAndDispose(.completed)
        }
    }
}

private final class TakeLast<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        precondition(count >= 0, "takeLast: count can't be negative")
        self.source = source
        self.count = count
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TakeLastSink(count: count, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
