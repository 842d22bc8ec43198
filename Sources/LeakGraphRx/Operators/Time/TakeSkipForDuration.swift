import LeakGraph

extension ObservableType {
    /// Forwards the source for `duration`, then completes.
    ///
    /// ```swift
    /// positions.take(for: .seconds(10), scheduler: scheduler)
    /// ```
    public func take(for duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        TakeForDuration(source: asObservable(), duration: duration, scheduler: scheduler)
    }

    /// RxSwift 5's name for ``take(for:scheduler:)``.
    @available(*, deprecated, renamed: "take(for:scheduler:)")
    public func take(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        take(for: duration, scheduler: scheduler)
    }

    /// Drops the elements that arrive within `duration` of the subscription.
    ///
    /// ```swift
    /// sensor.skip(.seconds(1), scheduler: scheduler)   // ignore the warm-up second
    /// ```
    public func skip(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        SkipForDuration(source: asObservable(), duration: duration, scheduler: scheduler)
    }
}

private final class TakeForDurationSink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element

    func on(_ event: Event<Element>) {
        serialForward(event)
    }

    func run(source: Observable<Element>, duration: RxTimeInterval, scheduler: SchedulerType) -> Disposable {
        let timer = scheduler.scheduleRelative(self, dueTime: duration) { sink in
            sink.serialForward(.completed)
            return Disposables.create()
        }
        return Disposables.create(timer, source.subscribe(self))
    }
}

private final class TakeForDuration<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let duration: RxTimeInterval
    private let scheduler: SchedulerType

    init(source: Observable<Element>, duration: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.duration = duration
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TakeForDurationSink(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, duration: duration, scheduler: scheduler))
    }
}

private final class SkipForDurationSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let open = Locked(false)

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if open.withLock({ $0 }) { forwardOn(event) }
        case .error, .completed:
            forwardTerminalAndDispose(event)
        }
    }

    func run(source: Observable<Element>, duration: RxTimeInterval, scheduler: SchedulerType) -> Disposable {
        let timer = scheduler.scheduleRelative(self, dueTime: duration) { sink in
            sink.open.withLock { $0 = true }
            return Disposables.create()
        }
        return Disposables.create(timer, source.subscribe(self))
    }
}

private final class SkipForDuration<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let duration: RxTimeInterval
    private let scheduler: SchedulerType

    init(source: Observable<Element>, duration: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.duration = duration
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SkipForDurationSink(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, duration: duration, scheduler: scheduler))
    }
}
