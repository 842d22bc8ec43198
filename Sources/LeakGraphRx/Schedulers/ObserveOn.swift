import LeakGraph
import Synchronization

extension ObservableType {
    /// Delivers the events on `scheduler`, in order.
    ///
    /// Events are queued and drained by one scheduled action at a time, so order holds even on
    /// a concurrent queue. Nothing is delivered after the subscription is disposed.
    public func observe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        ObserveOn(source: asObservable(), scheduler: scheduler)
    }

    /// RxSwift 5's name for ``observe(on:)``.
    @available(*, deprecated, renamed: "observe(on:)")
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler)
    }
}

/// Events wait in a queue; each scheduled run delivers the oldest one and schedules the next run
/// while more wait (RxSwift's order and timing: on a virtual-time scheduler, two events that
/// arrived together are delivered a tick apart).
private final class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var queue: [Event<Element>] = []
        var head = 0
        var scheduled = false

        mutating func dequeue() -> Event<Element>? {
            guard head < queue.count else {
                scheduled = false
                return nil
            }
            let event = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }
    }

    private let scheduler: ImmediateSchedulerType
    private let state = Locked(State())
    /// The run scheduled now: disposing the subscription cancels it. Each run removes itself
    /// when it starts (the next one may be scheduled, and start on another thread, before the
    /// scheduling call returns: a serial slot would let a run cancel its successor).
    let scheduledRun = CompositeDisposable()

    init(scheduler: ImmediateSchedulerType, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        let schedule = state.locked { state -> Bool in
            state.queue.append(event)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { scheduleRun() }
    }

    private func scheduleRun() {
        let slot = SingleAssignmentDisposable()
        guard let key = scheduledRun.insert(slot) else { return }
        slot.setDisposable(
            scheduler.schedule(self) { sink in
                sink.scheduledRun.remove(for: key)
                sink.deliverOldest()
                return Disposables.create()
            })
    }

    private func deliverOldest() {
        guard let event = state.locked({ $0.dequeue() }), !isDisposed else { return }
        guard case .next = event else { return forwardTerminalAndDispose(event) }
        forwardOn(event)
        let more = state.locked { state -> Bool in
            if state.head < state.queue.count { return true }
            state.scheduled = false
            return false
        }
        if more { scheduleRun() }
    }

    override func dispose() {
        super.dispose()
        let dropped = state.locked { state in
            let dropped = state.queue
            state.queue = []
            state.head = 0
            return dropped
        }
        _ = dropped
    }
}

private final class ObserveOn<Element>: Producer<Element> {
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
        let sink = ObserveOnSink(scheduler: scheduler, observer: observer, cancel: cancel)
        return (sink, Disposables.create(source.subscribe(sink), sink.scheduledRun))
    }
}
