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

/// Events wait in a queue with the time they arrived; one drain at a time sends the oldest, then
/// schedules itself again for the next one after what remains of its delay (RxSwift's timing: two
/// events that arrived together leave one scheduling apart, which is a tick in virtual time). An
/// error drops what waits and goes out at once, or right after the event being sent.
private final class DelaySink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var queue = FIFO<(time: RxTime, event: Event<Element>)>()
        /// A drain is scheduled or running.
        var active = false
        /// A drain is sending an event.
        var running = false
        var error: Event<Element>?
    }

    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType
    private let state = Locked(State())
    let sourceSubscription = SingleAssignmentDisposable()
    /// The scheduled drain (at most one at a time, but the next is scheduled from inside the one
    /// running, possibly on another thread): each removes itself when it runs, so disposing the
    /// subscription cancels what is pending without one drain cancelling its successor.
    let drains = CompositeDisposable()

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        if event.isStopEvent { sourceSubscription.dispose() }
        if case .error = event {
            // What waited is dropped, and released after unlocking.
            let (sendNow, dropped) = state.locked { state -> (Bool, [(time: RxTime, event: Event<Element>)?]) in
                state.error = event
                return (!state.running, state.queue.removeAll())
            }
            _ = dropped
            if sendNow { serialForward(event) }
            return
        }
        let schedule = state.locked { state -> Bool in
            state.queue.append((scheduler.now, event))
            defer { state.active = true }
            return !state.active
        }
        if schedule { scheduleDrain(after: dueTime) }
    }

    private func scheduleDrain(after delay: RxTimeInterval) {
        let slot = SingleAssignmentDisposable()
        guard let key = drains.insert(slot) else { return }
        slot.setDisposable(
            scheduler.scheduleRelative(self, dueTime: delay) { sink in
                sink.drains.remove(for: key)
                sink.drain()
                return Disposables.create()
            })
    }

    /// Sends the oldest waiting event, then schedules the next drain (or stops).
    private func drain() {
        // An error that came while no drain was sending went out then: nothing is left to do.
        let next = state.locked { state -> Event<Element>? in
            guard state.error == nil, let oldest = state.queue.popFirst() else {
                state.active = false
                return nil
            }
            state.running = true
            return oldest.event
        }
        guard let next else { return }
        serialForward(next)
        if case .completed = next { return }
        let after = state.locked { state -> (error: Event<Element>?, waitedSince: RxTime?) in
            state.running = false
            if let error = state.error { return (error, nil) }
            guard let waiting = state.queue.first else {
                state.active = false
                return (nil, nil)
            }
            return (nil, waiting.time)
        }
        if let error = after.error {
            serialForward(error)
        } else if let waitedSince = after.waitedSince {
            let remaining = max(0, dueTime.seconds - scheduler.now.timeIntervalSince(waitedSince))
            scheduleDrain(after: .nanoseconds(Int(remaining * 1_000_000_000)))
        }
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
        sink.sourceSubscription.setDisposable(source.subscribe(sink))
        return (sink, Disposables.create(sink.sourceSubscription, sink.drains))
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
