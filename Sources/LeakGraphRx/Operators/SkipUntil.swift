import LeakGraph

extension ObservableType {
    /// Drops the elements until `other` sends an element, then forwards everything. An error of
    /// `other` fails the sequence; its completion without an element leaves it skipping (as
    /// RxSwift's).
    ///
    /// ```swift
    /// events.skip(until: ready)
    /// ```
    public func skip<Other: ObservableType>(until other: Other) -> Observable<Element> {
        SkipUntil(source: asObservable(), other: other.asObservable())
    }

    /// RxSwift 5's name for ``skip(until:)``.
    @available(*, deprecated, renamed: "skip(until:)")
    public func skipUntil<Other: ObservableType>(_ other: Other) -> Observable<Element> {
        skip(until: other)
    }
}

private final class SkipUntilSink<Observer: ObserverType, OtherElement>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let open = Locked(false)
    let otherSubscription = SingleAssignmentDisposable()

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if open.withLock({ $0 }) { serialForward(event) }
        case .error:
            serialForward(event)
        case .completed:
            // Before the trigger, nothing was forwarded and nothing ever will be: the
            // subscription ends without completing (RxSwift's rule), and disposes the trigger.
            if open.withLock({ $0 }) { serialForward(event) } else { dispose() }
        }
    }

    fileprivate func otherEvent(_ event: Event<OtherElement>) {
        switch event {
        case .next:
            open.withLock { $0 = true }
            otherSubscription.dispose()
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            otherSubscription.dispose()
        }
    }
}

private final class SkipUntil<Element, OtherElement>: Producer<Element> {
    private let source: Observable<Element>
    private let other: Observable<OtherElement>

    init(source: Observable<Element>, other: Observable<OtherElement>) {
        self.source = source
        self.other = other
        super.init()
        addTrackedEdge(to: source, label: .source)
        addTrackedEdge(to: other, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SkipUntilSink<Observer, OtherElement>(observer: observer, cancel: cancel)
        sink.otherSubscription.setDisposable(
            other.subscribe(ForwardingObserver(parent: sink) { sink, event in sink.otherEvent(event) }))
        return (sink, Disposables.create(sink.otherSubscription, source.subscribe(sink)))
    }
}
