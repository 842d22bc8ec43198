import LeakGraph

extension ObservableType {
    /// On an error of type `Error`, hands it to the sequence `notificationHandler` made of the
    /// errors: its next element resubscribes to the source, its completion completes, its error
    /// fails. An error of another type fails the sequence at once.
    ///
    /// ```swift
    /// request.retry(when: { errors in errors.delay(.seconds(1), scheduler: scheduler).take(3) })
    /// ```
    public func retry<Error: Swift.Error, Notifier: ObservableType>(
        when notificationHandler: @escaping (Observable<Error>) -> Notifier
    ) -> Observable<Element> {
        RetryWhen(source: asObservable()) { (errors: Observable<Error>) in notificationHandler(errors).asObservable() }
    }

    /// ``retry(when:)`` for every error.
    public func retry<Notifier: ObservableType>(
        when notificationHandler: @escaping (Observable<Swift.Error>) -> Notifier
    ) -> Observable<Element> {
        RetryWhen(source: asObservable()) { (errors: Observable<Swift.Error>) in
            notificationHandler(errors).asObservable()
        }
    }

    /// RxSwift 5's name for ``retry(when:)``.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen<Error: Swift.Error, Notifier: ObservableType>(
        _ notificationHandler: @escaping (Observable<Error>) -> Notifier
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }

    /// RxSwift 5's name for ``retry(when:)``.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen<Notifier: ObservableType>(
        _ notificationHandler: @escaping (Observable<Swift.Error>) -> Notifier
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }
}

private final class RetryWhenSink<Observer: ObserverType, Failure, NotifierElement>: SerializingSink<Observer>,
    ObserverType
{
    typealias Element = Observer.Element
    private let source: Observable<Element>
    private let errors = PublishSubject<Failure>()
    /// The notifier's events, heard only from the first error on: RxSwift subscribes the
    /// notifier at once but listens to it only while an error waits for its answer, so a notifier
    /// that completes before any error ends nothing.
    private let triggers = PublishSubject<NotifierElement>()
    let current = SerialDisposable()
    let notifierSubscription = SingleAssignmentDisposable()
    /// Listening to `triggers` for the error that failed the current attempt.
    let triggerSubscription = SerialDisposable()

    init(source: Observable<Element>, observer: Observer, cancel: Cancelable) {
        self.source = source
        super.init(observer: observer, cancel: cancel)
    }

    func run(notifier: Observable<NotifierElement>) -> Disposable {
        notifierSubscription.setDisposable(notifier.subscribe(triggers))
        subscribeToSource()
        return Disposables.create(current, notifierSubscription, triggerSubscription)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next, .completed:
            // Delivered outside the allocation site the attempt's subscription was made in.
            LeakGraph.outsideAllocationSite { serialForward(event) }
        case .error(let error):
            guard let failure = error as? Failure else { return serialForward(event) }
            current.disposable = Disposables.create()
            triggerSubscription.disposable = triggers.subscribe(
                ForwardingObserver(parent: self) { sink, event in sink.notifierEvent(event) })
            errors.onNext(failure)
        }
    }

    private func notifierEvent(_ event: Event<NotifierElement>) {
        switch event {
        case .next:
            // From the trampoline: a source that fails while being subscribed to retries in a
            // loop, not in a recursion as deep as the number of retries.
            _ = CurrentThreadScheduler.instance.schedule(self) { sink in
                sink.subscribeToSource()
                return Disposables.create()
            }
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            serialForward(.completed)
        }
    }

    private func subscribeToSource() {
        if isDisposed { return }
        // The previous attempt's answer is in: its trigger no longer counts.
        triggerSubscription.disposable = Disposables.create()
        // Each new attempt's subscription shares this sink's allocation stack.
        LeakGraph.withAllocationSite(of: self) {
            let subscription = SingleAssignmentDisposable()
            current.disposable = subscription
            subscription.setDisposable(source.subscribe(self))
        }
    }
}

private final class RetryWhen<Element, Failure, NotifierElement>: Producer<Element> {
    private let source: Observable<Element>
    private let notificationHandler: (Observable<Failure>) -> Observable<NotifierElement>

    init(
        source: Observable<Element>, notificationHandler: @escaping (Observable<Failure>) -> Observable<NotifierElement>
    ) {
        self.source = source
        self.notificationHandler = notificationHandler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = RetryWhenSink<Observer, Failure, NotifierElement>(source: source, observer: observer, cancel: cancel)
        return (sink, sink.run(notifier: notificationHandler(sink.errorsObservable)))
    }
}

extension RetryWhenSink {
    /// The errors, as the notification handler sees them.
    var errorsObservable: Observable<Failure> { errors.asObservable() }
}
