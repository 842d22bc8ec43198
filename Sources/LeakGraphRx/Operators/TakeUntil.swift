import LeakGraph

extension ObservableType {
    /// Emits the source's elements until `other` emits an element (then completes) or an error
    /// (then fails). `other` completing without an element changes nothing.
    ///
    /// ```swift
    /// let stop = PublishSubject<Void>()
    /// numbers.take(until: stop).subscribe(onNext: { print($0) })
    /// stop.onNext(())   // completes
    /// ```
    public func take<Other: ObservableType>(until other: Other) -> Observable<Element> {
        TakeUntil(source: asObservable(), other: other.asObservable())
    }
}

private final class TakeUntilSink<Other, Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let otherSubscription = SingleAssignmentDisposable()

    override init(observer: Observer, cancel: Cancelable) {
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: otherSubscription, label: .otherSubscription)
    }

    func run(source: Observable<Element>, other: Observable<Other>) -> Disposable {
        let otherObserver = ForwardingObserver<TakeUntilSink, Other>(parent: self) { sink, event in
            sink.otherEvent(event)
        }
        otherSubscription.setDisposable(other.subscribe(otherObserver))
        let sourceSubscription = source.subscribe(self)
        return Disposables.create(otherSubscription, sourceSubscription)
    }

    func on(_ event: Event<Element>) {
        serialForward(event)
    }

    private func otherEvent(_ event: Event<Other>) {
        switch event {
        case .next: serialForward(.completed)
        case .error(let error): serialForward(.error(error))
        case .completed: otherSubscription.dispose()
        }
    }
}

private final class TakeUntil<Element, Other>: Producer<Element> {
    private let source: Observable<Element>
    private let other: Observable<Other>

    init(source: Observable<Element>, other: Observable<Other>) {
        self.source = source
        self.other = other
        super.init()
        addTrackedEdge(to: source, label: .source)
        addTrackedEdge(to: other, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TakeUntilSink<Other, Observer>(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, other: other))
    }
}
