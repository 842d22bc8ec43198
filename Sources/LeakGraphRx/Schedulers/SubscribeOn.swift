import LeakGraph

extension ObservableType {
    /// Subscribes to the source (and disposes the subscription) on `scheduler`.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        SubscribeOn(source: asObservable(), scheduler: scheduler)
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

    func run(source: Observable<Element>, scheduler: ImmediateSchedulerType) -> Disposable {
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

private final class SubscribeOn<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let scheduler: ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SubscribeOnSink(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, scheduler: scheduler))
    }
}
