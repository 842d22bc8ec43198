import LeakGraph

extension ObservableType {
    /// Subscribes to the source (and disposes the subscription) on `scheduler`.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        SubscribeOn(source: self, scheduler: scheduler)
    }

    /// RxSwift 5's name for ``subscribe(on:)``.
    @available(*, deprecated, renamed: "subscribe(on:)")
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler)
    }
}

private final class SubscribeOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    func on(_ event: Event<Element>) {
        if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
    }

    func run<Source: ObservableType>(source: Source, scheduler: ImmediateSchedulerType) -> Disposable
    where Source.Element == Element {
        let subscription = SerialDisposable()
        let scheduled = SingleAssignmentDisposable()
        subscription.disposable = scheduled
        scheduled.setDisposable(
            scheduler.schedule(self) { sink in
                let inner = SingleAssignmentDisposable()
                inner.setDisposable(source.subscribe(sink))
                let onScheduler = Disposables.create(with: {
                    _ = scheduler.schedule(inner) { inner in
                        inner.dispose()
                        return Disposables.create()
                    }
                })
                subscription.disposable = onScheduler
                return Disposables.create()
            })
        return subscription
    }
}

/// Generic over its source, which it subscribes to as it is: not through `asObservable()`, whose
/// wrapper would end the source's subscription on the terminal event, where RxSwift ends it on
/// the scheduler (a tick later in virtual time).
private final class SubscribeOn<Source: ObservableType>: Producer<Source.Element> {
    private let source: Source
    private let scheduler: ImmediateSchedulerType

    init(source: Source, scheduler: ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
        super.init()
        if let tracked = asTrackedObject(source) { addTrackedEdge(to: tracked, label: .source) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SubscribeOnSink(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, scheduler: scheduler))
    }
}
