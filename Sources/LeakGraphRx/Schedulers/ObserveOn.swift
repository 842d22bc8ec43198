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
        var queue = FIFO<Event<Element>>()
        var scheduled = false
    }

    private let scheduler: ImmediateSchedulerType
    private let state = Locked(State())

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

    /// One run at a time, each scheduled by the one before (or by `on` when none is): its
    /// disposable is not kept — a run after disposal finds the sink disposed and does nothing,
    /// and keeping one per event would cost a tracked disposable per event.
    private func scheduleRun() {
        _ = scheduler.schedule(self) { sink in
            sink.deliverOldest()
            return Disposables.create()
        }
    }

    private func deliverOldest() {
        let event = state.locked { state -> Event<Element>? in
            let event = state.queue.popFirst()
            if event == nil { state.scheduled = false }
            return event
        }
        guard let event, !isDisposed else { return }
        guard case .next = event else { return forwardTerminalAndDispose(event) }
        forwardOn(event)
        let more = state.locked { state -> Bool in
            if !state.queue.isEmpty { return true }
            state.scheduled = false
            return false
        }
        if more { scheduleRun() }
    }

    override func dispose() {
        super.dispose()
        // Released after unlocking.
        let dropped = state.locked { $0.queue.removeAll() }
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
        return (sink, source.subscribe(sink))
    }
}
