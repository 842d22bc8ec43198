import LeakGraph

extension ObservableType {
    /// Groups elements into arrays, each emitted when it holds `count` elements or `timeSpan`
    /// has passed since the previous one was emitted (possibly empty); on completion the
    /// current array is emitted, then the completion.
    ///
    /// ```swift
    /// logLines.buffer(timeSpan: .seconds(1), count: 100, scheduler: scheduler)
    /// ```
    public func buffer(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) -> Observable<[Element]> {
        BufferTimeCount(source: asObservable(), timeSpan: timeSpan, count: count, scheduler: scheduler)
    }
}

private final class BufferSink<Element, Observer: ObserverType>: SerializingSink<Observer>, ObserverType
where Observer.Element == [Element] {
    private struct State {
        var buffer: [Element] = []
        var windowID = 0
    }

    private let timeSpan: RxTimeInterval
    private let count: Int
    private let scheduler: SchedulerType
    private let state = Locked(State())
    let timer = SerialDisposable()

    init(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.timeSpan = timeSpan
        self.count = count
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            let full = state.locked { state -> (buffer: [Element], window: Int)? in
                state.buffer.append(element)
                guard state.buffer.count == count else { return nil }
                return flush(&state)
            }
            if let full {
                serialForward(.next(full.buffer))
                startTimer(window: full.window)
            }
        case .error(let error):
            let dropped = state.locked { state in
                defer { state.buffer = [] }
                return state.buffer
            }
            _ = dropped
            serialForward(.error(error))
        case .completed:
            let rest = state.locked { state in
                defer { state.buffer = [] }
                return state.buffer
            }
            serialForward(.next(rest))
            serialForward(.completed)
        }
    }

    private func flush(_ state: inout State) -> (buffer: [Element], window: Int) {
        state.windowID &+= 1
        defer { state.buffer = [] }
        return (state.buffer, state.windowID)
    }

    func startTimer(window: Int) {
        if timer.isDisposed { return }
        timer.disposable = scheduler.scheduleRelative(window, dueTime: timeSpan) { window in
            let flushed = self.state.locked { state -> (buffer: [Element], window: Int)? in
                guard state.windowID == window else { return nil }
                return self.flush(&state)
            }
            if let flushed {
                self.serialForward(.next(flushed.buffer))
                self.startTimer(window: flushed.window)
            }
            return Disposables.create()
        }
    }
}

private final class BufferTimeCount<Element>: Producer<[Element]> {
    private let source: Observable<Element>
    private let timeSpan: RxTimeInterval
    private let count: Int
    private let scheduler: SchedulerType

    init(source: Observable<Element>, timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) {
        self.source = source
        self.timeSpan = timeSpan
        self.count = count
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == [Element] {
        let sink = BufferSink<Element, Observer>(
            timeSpan: timeSpan, count: count, scheduler: scheduler, observer: observer, cancel: cancel)
        sink.startTimer(window: 0)
        return (sink, Disposables.create(sink.timer, source.subscribe(sink)))
    }
}
