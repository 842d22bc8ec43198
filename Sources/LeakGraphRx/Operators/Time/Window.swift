import LeakGraph

extension ObservableType {
    /// Splits the sequence into windows, each an observable of the elements received while it
    /// was open: a window closes after `count` elements or `timeSpan`, and the next opens at
    /// once (the first at the subscription). The source stays subscribed while the outer
    /// subscription or any window subscription lives.
    ///
    /// ```swift
    /// clicks.window(timeSpan: .seconds(1), count: 10, scheduler: scheduler).flatMap { $0.toArray() }
    /// ```
    public func window(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) -> Observable<
        Observable<Element>
    > {
        WindowTimeCount(source: asObservable(), timeSpan: timeSpan, count: count, scheduler: scheduler)
    }
}

private final class WindowSink<Element, Observer: ObserverType>: SerializingSink<Observer>, ObserverType
where Observer.Element == Observable<Element> {
    private struct State {
        var subject = PublishSubject<Element>()
        var count = 0
        var windowID = 0
    }

    private let timeSpan: RxTimeInterval
    private let maxCount: Int
    private let scheduler: SchedulerType
    private let state = Locked(State())
    private let timer = SerialDisposable()
    private let group = CompositeDisposable()
    let refCount: RefCountDisposable

    init(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.timeSpan = timeSpan
        maxCount = count
        self.scheduler = scheduler
        _ = group.insert(timer)
        refCount = RefCountDisposable(disposable: group)
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<Element>) -> Disposable {
        let first = state.locked { $0.subject }
        serialForward(.next(AddRef(source: first.asObservable(), refCount: refCount).asObservable()))
        startTimer(window: 0)
        _ = group.insert(source.subscribe(self))
        return refCount
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // Sent while holding nothing: the subject's observers are user code.
            let current = state.locked { $0.subject }
            current.onNext(element)
            let next = state.locked { state -> (old: PublishSubject<Element>, new: PublishSubject<Element>, id: Int)? in
                guard state.subject === current else { return nil }
                state.count += 1
                guard state.count == maxCount else { return nil }
                return rotate(&state)
            }
            if let next { open(next) }
        case .error(let error):
            state.locked { $0.subject }.onError(error)
            serialForward(.error(error))
        case .completed:
            state.locked { $0.subject }.onCompleted()
            serialForward(.completed)
        }
    }

    private func rotate(_ state: inout State) -> (old: PublishSubject<Element>, new: PublishSubject<Element>, id: Int) {
        let old = state.subject
        state.subject = PublishSubject<Element>()
        state.count = 0
        state.windowID &+= 1
        return (old, state.subject, state.windowID)
    }

    /// Completes the old window, emits the new one and restarts the timer for it.
    private func open(_ next: (old: PublishSubject<Element>, new: PublishSubject<Element>, id: Int)) {
        next.old.onCompleted()
        serialForward(.next(AddRef(source: next.new.asObservable(), refCount: refCount).asObservable()))
        startTimer(window: next.id)
    }

    private func startTimer(window: Int) {
        if timer.isDisposed { return }
        timer.disposable = scheduler.scheduleRelative(window, dueTime: timeSpan) { window in
            let next = self.state.locked { state in state.windowID == window ? self.rotate(&state) : nil }
            if let next { self.open(next) }
            return Disposables.create()
        }
    }
}

private final class WindowTimeCount<Element>: Producer<Observable<Element>> {
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
    ) where Observer.Element == Observable<Element> {
        let sink = WindowSink(
            timeSpan: timeSpan, count: count, scheduler: scheduler, observer: observer, cancel: cancel)
        return (sink, sink.run(source))
    }
}
