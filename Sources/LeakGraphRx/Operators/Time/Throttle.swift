import Foundation
import LeakGraph

extension ObservableType {
    /// Emits the first element, then at most one element per `dueTime`: with `latest`, the last
    /// element received meanwhile is emitted when the period ends; without, those are dropped.
    ///
    /// ```swift
    /// taps.throttle(.seconds(1), scheduler: MainScheduler.instance)
    /// ```
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType)
        -> Observable<Element>
    {
        Throttle(source: asObservable(), dueTime: dueTime, latest: latest, scheduler: scheduler)
    }
}

private final class ThrottleSink<Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var lastUnsent: Element?
        var lastSentTime: Date?
        var completed = false
    }

    private let dueTime: RxTimeInterval
    private let latest: Bool
    private let scheduler: SchedulerType
    private let state = Locked(State())
    let timer = SerialDisposable()

    init(dueTime: RxTimeInterval, latest: Bool, scheduler: SchedulerType, observer: Observer, cancel: Cancelable) {
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    private enum Decision {
        case sendNow
        case drop
        case schedule(after: TimeInterval)
        case alreadyScheduled
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            let now = scheduler.now
            var replaced: Element?
            let decision = state.locked { state -> Decision in
                let remaining =
                    state.lastSentTime.map { self.dueTime.seconds - now.timeIntervalSince($0) } ?? 0
                if remaining <= 0 {
                    state.lastUnsent = nil
                    state.lastSentTime = now
                    return .sendNow
                }
                guard latest else { return .drop }
                if let previous = state.lastUnsent {
                    replaced = previous
                    state.lastUnsent = element
                    return .alreadyScheduled
                }
                state.lastUnsent = element
                return .schedule(after: remaining)
            }
            // Released after unlocking (its deinit may re-enter).
            _ = replaced
            switch decision {
            case .sendNow: serialForward(event)
            case .drop, .alreadyScheduled: break
            case .schedule(let remaining):
                let delay = RxTimeInterval.nanoseconds(Int((remaining * 1e9).rounded()))
                timer.disposable = scheduler.scheduleRelative(0, dueTime: delay) { _ in
                    self.propagate()
                    return Disposables.create()
                }
            }
        case .error:
            let dropped = state.locked { state in
                defer { state.lastUnsent = nil }
                return state.lastUnsent
            }
            _ = dropped
            serialForward(event)
        case .completed:
            let completeNow = state.locked { state -> Bool in
                if state.lastUnsent != nil {
                    state.completed = true
                    return false
                }
                return true
            }
            if completeNow { serialForward(.completed) }
        }
    }

    private func propagate() {
        let now = scheduler.now
        let (element, completed) = state.locked { state -> (Element?, Bool) in
            let element = state.lastUnsent
            if element != nil {
                state.lastUnsent = nil
                state.lastSentTime = now
            }
            return (element, state.completed)
        }
        if let element { serialForward(.next(element)) }
        if completed { serialForward(.completed) }
    }
}

private final class Throttle<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let latest: Bool
    private let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, latest: Bool, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ThrottleSink(
            dueTime: dueTime, latest: latest, scheduler: scheduler, observer: observer, cancel: cancel)
        return (sink, Disposables.create(source.subscribe(sink), sink.timer))
    }
}
