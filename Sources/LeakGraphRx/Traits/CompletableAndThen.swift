import LeakGraph

/// `completable.andThen(second)`: subscribes to the completable, and on its completion to
/// `second`. The subscription holds `second` only: the completable (and whatever its closures
/// captured) is released once it has completed, as RxSwift releases it — a `concat` of the two
/// would hold both until the end.
final class CompletableAndThen<Element>: Producer<Element> {
    private let first: Observable<Never>
    private let second: Observable<Element>

    init(first: Observable<Never>, second: Observable<Element>) {
        self.first = first
        self.second = second
        super.init()
        addTrackedEdge(to: first, label: .source)
        addTrackedEdge(to: second, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = CompletableAndThenSink(second: second, observer: observer, cancel: cancel)
        return (sink, sink.run(first: first))
    }
}

private final class CompletableAndThenSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Never
    private let second: Observable<Observer.Element>
    /// The completable's subscription, then `second`'s.
    private let current = SerialDisposable()

    init(second: Observable<Observer.Element>, observer: Observer, cancel: Cancelable) {
        self.second = second
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: second, label: .sources)
        addTrackedEdge(to: current, label: .current)
    }

    func run(first: Observable<Never>) -> Disposable {
        let subscription = SingleAssignmentDisposable()
        current.disposable = subscription
        subscription.setDisposable(first.subscribe(self))
        return current
    }

    func on(_ event: Event<Never>) {
        switch event {
        case .error(let error): forwardTerminalAndDispose(.error(error))
        case .completed:
            current.disposable = second.subscribe(
                ForwardingObserver(parent: self) { sink, event in
                    if case .next = event { sink.forwardOn(event) } else { sink.forwardTerminalAndDispose(event) }
                })
        }
    }
}
