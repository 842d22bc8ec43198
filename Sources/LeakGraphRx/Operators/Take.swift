import LeakGraph
import Synchronization

extension ObservableType {
    /// Emits the first `count` elements, then completes (and disposes the source).
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).take(2).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public func take(_ count: Int) -> Observable<Element> {
        count <= 0 ? Observable.empty() : Take(source: asObservable(), count: count)
    }
}

private final class TakeSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let remaining: Atomic<Int>

    init(count: Int, observer: Observer, cancel: Cancelable) {
        remaining = Atomic(count)
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            let left = remaining.subtract(1, ordering: .relaxed).newValue
            if left >= 0 { forwardOn(event) }
            if left == 0 { forwardTerminalAndDispose(.completed) }
        case .error, .completed:
            forwardTerminalAndDispose(event)
        }
    }
}

private final class Take<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        self.source = source
        self.count = count
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TakeSink(count: count, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
