import LeakGraph

extension ObservableType {
    /// Fails with ``RxError/timeout`` when no element arrives within `dueTime` of the
    /// subscription or of the previous element.
    ///
    /// ```swift
    /// request.timeout(.seconds(5), scheduler: scheduler)
    /// ```
    public func timeout(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Timeout(source: asObservable(), dueTime: dueTime, other: .error(RxError.timeout), scheduler: scheduler)
    }

    /// Switches to `other` when no element arrives within `dueTime` of the subscription or of
    /// the previous element.
    public func timeout<Source: ObservableConvertibleType>(
        _ dueTime: RxTimeInterval, other: Source, scheduler: SchedulerType
    ) -> Observable<Element> where Element == Source.Element {
        Timeout(source: asObservable(), dueTime: dueTime, other: other.asObservable(), scheduler: scheduler)
    }
}

private final class TimeoutSink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var id = 0
        var switched = false
    }

    private let state = Locked(State())
    private let timer = SerialDisposable()
    private let subscription = SerialDisposable()

    func run(source: Observable<Element>, dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType)
        -> Disposable
    {
        let original = SingleAssignmentDisposable()
        subscription.disposable = original
        startTimer(dueTime: dueTime, other: other, scheduler: scheduler)
        original.setDisposable(
            source.subscribe(SourceObserver(sink: self, dueTime: dueTime, other: other, scheduler: scheduler)))
        return Disposables.create(subscription, timer)
    }

    /// Events of `other`, once the timeout switched to it.
    func on(_ event: Event<Element>) {
        serialForward(event)
    }

    fileprivate func sourceEvent(
        _ event: Event<Element>, dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType
    ) {
        let wins = state.locked { state -> Bool in
            guard !state.switched else { return false }
            state.id &+= 1
            return true
        }
        guard wins else { return }
        serialForward(event)
        if case .next = event { startTimer(dueTime: dueTime, other: other, scheduler: scheduler) }
    }

    private func startTimer(dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType) {
        if timer.isDisposed { return }
        let id = state.locked { $0.id }
        timer.disposable = scheduler.scheduleRelative(id, dueTime: dueTime) { id in
            let timerWins = self.state.locked { state -> Bool in
                state.switched = state.id == id
                return state.switched
            }
            if timerWins { self.subscription.disposable = other.subscribe(self) }
            return Disposables.create()
        }
    }
}

/// The source's observer: element and terminal events race with the timer.
private final class SourceObserver<Observer: ObserverType>: ObserverType {
    typealias Element = Observer.Element
    private let sink: TimeoutSink<Observer>
    private let dueTime: RxTimeInterval
    private let other: Observable<Element>
    private let scheduler: SchedulerType

    init(sink: TimeoutSink<Observer>, dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType) {
        self.sink = sink
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
    }

    func on(_ event: Event<Element>) {
        sink.sourceEvent(event, dueTime: dueTime, other: other, scheduler: scheduler)
    }
}

private final class Timeout<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let other: Observable<Element>
    private let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
        addTrackedEdge(to: other, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TimeoutSink(observer: observer, cancel: cancel)
        return (sink, sink.run(source: source, dueTime: dueTime, other: other, scheduler: scheduler))
    }
}
