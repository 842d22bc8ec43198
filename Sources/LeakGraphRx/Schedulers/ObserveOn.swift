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

private final class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var queue: [Event<Element>] = []
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
        guard schedule else { return }
        _ = scheduler.schedule(self) { sink in
            sink.drain()
            return Disposables.create()
        }
    }

    private func drain() {
        while true {
            let events = state.locked { state -> [Event<Element>] in
                let events = state.queue
                state.queue = []
                if events.isEmpty { state.scheduled = false }
                return events
            }
            if events.isEmpty || isDisposed { return }
            for event in events {
                if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
            }
        }
    }

    override func dispose() {
        super.dispose()
        let dropped = state.locked { state in
            let dropped = state.queue
            state.queue = []
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
        return (sink, source.subscribe(sink))
    }
}
