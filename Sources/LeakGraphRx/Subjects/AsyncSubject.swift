import LeakGraph

/// A subject that sends only the last element it received, and only when it completes: then
/// that element (if any) and the completion, to every observer and to any later subscriber. An
/// error is sent at once.
///
/// The subject holds each observer (`observers` edge) and each subscription holds the subject
/// (`subject` edge) until it is disposed or the subject terminates, as ``PublishSubject`` does.
///
/// ```swift
/// let subject = AsyncSubject<Int>()
/// subject.subscribe(onNext: { print($0) })
/// subject.onNext(1); subject.onNext(2)
/// subject.onCompleted()   // 2
/// ```
///
/// Thread safe; observers are called after unlocking.
public final class AsyncSubject<Element>: Observable<Element>, SubjectType, ObserverType, UnsubscribeType {
    // Thread-safe: all mutable state is in `state`, `lastElement` and `stopEvent`, the
    // last two read and written only under `state`'s lock.
    /// The subject itself as its observer.
    public typealias SubjectObserverType = AsyncSubject<Element>

    private let state = Locked(SubjectState())
    private var lastElement: Element?
    /// What a subscriber after the end receives: the last element (followed by a completion),
    /// the completion, or the error.
    private var stopEvent: Event<Element>?

    /// Creates a subject with no observers.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A subject without a label; `AsyncSubject<Int>.init` then names a `() -> AsyncSubject<Int>`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.locked { !$0.observers.isEmpty } }

    /// Keeps `element` as the last one (sent on completion); ignored after a terminal event.
    public func on(_ event: Event<Element>) {
        let (observers, delivered, replaced) = state.locked {
            state -> (ObserverBag.Entries, Event<Element>?, Element?) in
            guard !state.stopped else { return ([], nil, nil) }
            switch event {
            case .next(let element):
                // The element it replaces is let go after unlocking (its deinit is arbitrary code).
                var previous: Element? = element
                swap(&lastElement, &previous)
                return ([], nil, previous)
            case .error:
                state.stopped = true
                stopEvent = event
                return (state.observers.removeAll(owner: self), event, nil)
            case .completed:
                state.stopped = true
                stopEvent = lastElement.map { .next($0) } ?? .completed
                return (state.observers.removeAll(owner: self), stopEvent, nil)
            }
        }
        _ = replaced
        guard let delivered else { return }
        ObserverBag.dispatch(observers, delivered)
        if case .next = delivered { ObserverBag.dispatch(observers, Event<Element>.completed) }
    }

    /// Subscribes `observer`; after the end, sends it the outcome at once.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let (key, stop) = state.locked { state -> (Int?, Event<Element>?) in
            state.stopped ? (nil, stopEvent) : (state.observers.insert(observer, owner: self), nil)
        }
        if let key { return SubjectSubscription(owner: self, key: key) }
        if let stop {
            observer.on(stop)
            if case .next = stop { observer.on(.completed) }
        }
        return Disposables.create()
    }

    func unsubscribe(key: Int) {
        let removed = state.locked { $0.observers.remove(key, owner: self) }
        _ = removed
    }

    /// The subject as an observer.
    public func asObserver() -> AsyncSubject<Element> { self }
}
