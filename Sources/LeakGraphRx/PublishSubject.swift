import LeakGraph
import Synchronization

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
    UnsubscribeType, @unchecked Sendable
{
    // @unchecked Sendable: all mutable state is in `state`, behind its mutex.
    private struct State: @unchecked Sendable {  // only accessed under `state`'s mutex
        var observers = ObserverBag<Element>()
        var stopEvent: Event<Element>?
        var disposed = false
    }

    private let state = Mutex(State())

    /// Creates a subject with no observers.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.locked { !$0.observers.isEmpty } }

    /// Whether the subject was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// Sends `element` to the current observers; ignored after a terminal event.
    public func onNext(_ element: Element) {
        let observers = state.locked { state in
            state.stopEvent == nil && !state.disposed ? state.observers.entries : []
        }
        ObserverBag.dispatchNext(observers, element)
    }

    /// Sends `event` to the current observers; ignored after a terminal event.
    public func on(_ event: Event<Element>) {
        if case .next(let element) = event {
            onNext(element)
        } else {
            let observers = state.locked { state -> [ObserverBag<Element>.Entry] in
                guard state.stopEvent == nil, !state.disposed else { return [] }
                state.stopEvent = event
                return state.observers.removeAll(owner: self)
            }
            ObserverBag.dispatch(observers, event)
        }
    }

    /// Subscribes `observer` to later events (or sends the terminal event at once).
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let result = state.locked { state -> (key: Int?, event: Event<Element>?) in
            if state.disposed { return (nil, .error(RxError.disposed(object: self))) }
            if let stopEvent = state.stopEvent { return (nil, stopEvent) }
            return (state.observers.insert(observer, owner: self), nil)
        }
        guard let key = result.key else {
            if let event = result.event { observer.on(event) }
            return Disposables.create()
        }
        return SubjectSubscription(owner: self, key: key)
    }

    func unsubscribe(key: Int) {
        let removed = state.locked { $0.observers.remove(key, owner: self) }
        _ = removed
    }

    /// The subject as an observer.
    public func asObserver() -> PublishSubject<Element> { self }

    /// Drops every observer; later subscriptions receive an error.
    public func dispose() {
        let observers = state.locked { state -> [ObserverBag<Element>.Entry] in
            state.disposed = true
            state.stopEvent = nil
            return state.observers.removeAll(owner: self)
        }
        _ = observers
    }
}
