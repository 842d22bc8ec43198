import LeakGraph
import Synchronization

extension ObservableType {
    /// Ignores the first `count` elements.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).skip(2).subscribe(onNext: { print($0) })   // 3
    /// ```
    public func skip(_ count: Int) -> Observable<Element> {
        Skip(source: asObservable(), count: count)
    }
}

private final class SkipSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let remaining: Atomic<Int>

    init(count: Int, observer: Observer, cancel: Cancelable) {
        remaining = Atomic(count)
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining.load(ordering: .relaxed) <= 0 || remaining.subtract(1, ordering: .relaxed).newValue < 0 {
                forwardOn(event)
            }
        case .error, .completed:
            forwardTerminalAndDispose(event)
        }
    }
}

private final class Skip<Element>: Producer<Element> {
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
        let sink = SkipSink(count: count, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
