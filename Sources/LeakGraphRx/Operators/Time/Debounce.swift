import LeakGraph

extension ObservableType {
    /// Emits an element only once `dueTime` passed without another one; on completion, the
    /// pending element (if any) is emitted first.
    ///
    /// ```swift
    /// searchText.debounce(.milliseconds(300), scheduler: MainScheduler.instance)
    /// ```
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Debounce(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

private final class DebounceSink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var id: UInt64 = 0
        var value: Element?
    }

    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType
    private let state = Locked(State())
    let timer = SerialDisposable()

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // The replaced element is released after unlocking (its deinit may re-enter).
            let (id, replaced) = state.locked { state -> (UInt64, Element?) in
                state.id &+= 1
                defer { state.value = element }
                return (state.id, state.value)
            }
            _ = replaced
            timer.disposable = scheduler.scheduleRelative(id, dueTime: dueTime) { id in
                self.propagate(id)
                return Disposables.create()
            }
        case .error:
            let dropped = state.locked { state in
                defer { state.value = nil }
                return state.value
            }
            _ = dropped
            serialForward(event)
        case .completed:
            let pending = state.locked { state in
                defer { state.value = nil }
                return state.value
            }
            if let pending { serialForward(.next(pending)) }
            serialForward(.completed)
        }
    }

    private func propagate(_ id: UInt64) {
        let value = state.locked { state -> Element? in
            guard state.id == id, let value = state.value else { return nil }
            state.value = nil
            return value
        }
        if let value { serialForward(.next(value)) }
    }
}

private final class Debounce<Element>: Producer<Element> {
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
        let sink = DebounceSink(dueTime: dueTime, scheduler: scheduler, observer: observer, cancel: cancel)
        return (sink, Disposables.create(source.subscribe(sink), sink.timer))
    }
}
