import LeakGraph

/// A subject that multicasts each event to the observers subscribed at that moment.
///
/// Late subscribers receive only later events; after a terminal event they receive that
/// terminal event at once. The subject holds each observer (`observers` edge) and each
/// subscription holds the subject (`subject` edge) until it is disposed or the subject
/// terminates: dropping the subject and the subscription without either is a leaked cycle.
///
/// ```swift
/// let subject = PublishSubject<Int>()
/// let subscription = subject.subscribe(onNext: { print($0) })
/// subject.onNext(1)   // 1
/// subscription.dispose()
/// ```
///
/// Thread safe; re-entrant: an observer may send events to the subject from inside `on(_:)`.
/// Delivering an event copies the observer list (no allocation) and calls each observer after
/// unlocking.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    UnsubscribeType
{
    /// The subject itself as its observer.
    public typealias SubjectObserverType = PublishSubject<Element>

    // Thread-safe: all mutable state is in `state` or `stopEvent`, behind `state`'s lock.
    private let state = Locked(SubjectState())
    /// The terminal event; read and written only under `state`'s lock (and only once
    /// `state.stopped` says there is one). Not an `Event<Element>?`: see ``TerminalEvent``.
    private var stopEvent: TerminalEvent?

    /// Creates a subject with no observers.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A subject without a label; `PublishSubject<Int>.init` then names a `() -> PublishSubject<Int>`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.locked { !$0.observers.isEmpty } }

    /// Whether the subject was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// Sends `element` to the current observers; ignored after a terminal event.
    public func onNext(_ element: Element) {
        let observers = state.locked { state in
            state.stopped || state.disposed ? ObserverBag.Entries() : state.observers.entries
        }
        ObserverBag.dispatchNext(observers, element)
    }

    /// Sends `event` to the current observers; ignored after a terminal event.
    public func on(_ event: Event<Element>) {
        if case .next(let element) = event {
            onNext(element)
        } else {
            terminate(event)
        }
    }

    @inline(never)
    private func terminate(_ event: Event<Element>) {
        let observers = state.locked { state -> ObserverBag.Entries in
            guard !state.stopped, !state.disposed else { return [] }
            state.stopped = true
            stopEvent = TerminalEvent(event)
            return state.observers.removeAll(owner: self)
        }
        ObserverBag.dispatch(observers, event)
    }

    /// Subscribes `observer` to later events (or sends the terminal event at once).
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let key = state.locked { state -> Int? in
            state.stopped || state.disposed ? nil : state.observers.insert(observer, owner: self)
        }
        guard let key else { return subscribeAfterEnd(observer) }
        return SubjectSubscription(owner: self, key: key)
    }

    @inline(never)
    private func subscribeAfterEnd<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let event = state.locked { state -> Event<Element>? in
            if state.disposed { return .error(RxError.disposed(object: self)) }
            return stopEvent?.event()
        }
        if let event { observer.on(event) }
        return Disposables.create()
    }

    func unsubscribe(key: Int) {
        let removed = state.locked { $0.observers.remove(key, owner: self) }
        _ = removed
    }

    /// The subject as an observer.
    public func asObserver() -> PublishSubject<Element> { self }

    /// Drops every observer; later subscriptions receive an error.
    public func dispose() {
        let (observers, event) = state.locked { state -> (ObserverBag.Entries, TerminalEvent?) in
            state.disposed = true
            let event = stopEvent
            stopEvent = nil
            return (state.observers.removeAll(owner: self), event)
        }
        _ = observers
        _ = event
    }
}

/// A subject's lock state; not generic, so taking the lock costs no metadata lookup.
struct SubjectState {
    var observers = ObserverBag()
    /// Whether a terminal event was received (the event itself is the subject's `stopEvent`).
    var stopped = false
    var disposed = false
}
