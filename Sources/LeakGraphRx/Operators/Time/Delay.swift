import LeakGraph

extension ObservableType {
    /// Shifts every element and the completion `dueTime` later, keeping their order; an error
    /// is delivered at once (dropping what was still waiting), as in RxSwift.
    ///
    /// ```swift
    /// Observable.of(1, 2).delay(.milliseconds(100), scheduler: scheduler)
    /// ```
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Delay(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }

    /// Subscribes to the source only once `dueTime` has passed.
    ///
    /// ```swift
    /// refresh.delaySubscription(.seconds(1), scheduler: scheduler)
    /// ```
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        DelaySubscription(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

private final class DelaySink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType
    /// Events waiting for their time, in arrival order; each scheduled action sends the oldest,
    /// so the order holds even if two timers fire out of order.
    private let waiting = Locked<[Event<Element>]>([])
    let timers = CompositeDisposable()

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        if case .error = event {
            let dropped = waiting.locked { waiting in
                defer { waiting = [] }
                return waiting
            }
            _ = dropped
            return serialForward(event)
        }
        waiting.locked { $0.append(event) }
        let slot = SingleAssignmentDisposable()
        guard let key = timers.insert(slot) else { return }
        slot.setDisposable(
            scheduler.scheduleRelative(key, dueTime: dueTime) { key in
                self.timers.remove(for: key)
                self.sendOldest()
                return Disposables.create()
            })
    }

    private func sendOldest() {
        let event = waiting.locked { waiting in waiting.isEmpty ? nil : waiting.removeFirst() }
        if let event { serialForward(event) }
    }
}

private final class Delay<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DelaySink(dueTime: dueTime, scheduler: scheduler, observer: observer, cancel: cancel)
        return (sink, Disposables.create(source.subscribe(sink), sink.timers))
    }
}

private final class DelaySubscription<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = PassThroughSink(observer: observer, cancel: cancel)
        let source = source
        let subscription = scheduler.scheduleRelative(sink, dueTime: dueTime) { sink in source.subscribe(sink) }
        return (sink, subscription)
    }
}
