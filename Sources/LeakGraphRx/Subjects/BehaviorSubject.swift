import LeakGraph
import Synchronization

/// A subject that holds a current value: each subscriber first receives the latest element
/// (or the initial value), then later events.
///
/// After a terminal event, new subscribers receive only that event. Ownership is reported as
/// for ``PublishSubject``.
///
/// ```swift
/// let subject = BehaviorSubject(value: 0)
/// subject.onNext(1)
/// _ = subject.subscribe(onNext: { print($0) })   // 1
/// print(try subject.value())                       // 1
/// ```
///
/// Thread safe and re-entrant; observers are called after unlocking.
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    UnsubscribeType
{
    /// The subject itself as its observer.
    public typealias SubjectObserverType = BehaviorSubject<Element>

    // Thread-safe: all mutable state is in `state`, behind its mutex.
    private struct State {
        var observers = ObserverBag()
        var element: Element
        var stopEvent: Event<Element>?
        var disposed = false
    }

    private let state: Locked<State>

    /// Creates a subject whose current value is `value`.
    public init(value: Element) {
        state = Locked(State(element: value))
        super.init()
    }

    /// The current value.
    ///
    /// - Throws: The error the subject terminated with, or ``RxError/disposed(object:)``.
    public func value() throws -> Element {
        let result = state.locked { state -> Result<Element, Swift.Error> in
            if state.disposed { return .failure(RxError.disposed(object: self)) }
            if let error = state.stopEvent?.error { return .failure(error) }
            return .success(state.element)
        }
        return try result.get()
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.locked { !$0.observers.isEmpty } }

    /// Whether the subject was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// Stores an element as the current value and sends it; ignored after a terminal event.
    public func on(_ event: Event<Element>) {
        let observers = state.locked { state -> ObserverBag.Entries in
            guard state.stopEvent == nil, !state.disposed else { return [] }
            if case .next(let element) = event {
                state.element = element
                return state.observers.entries
            }
            state.stopEvent = event
            return state.observers.removeAll(owner: self)
        }
        ObserverBag.dispatch(observers, event)
    }

    /// Subscribes `observer`: it receives the current value, then later events.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let result = state.locked { state -> (key: Int?, event: Event<Element>) in
            if state.disposed { return (nil, .error(RxError.disposed(object: self))) }
            if let stopEvent = state.stopEvent { return (nil, stopEvent) }
            return (state.observers.insert(observer, owner: self), .next(state.element))
        }
        observer.on(result.event)
        guard let key = result.key else { return Disposables.create() }
        return SubjectSubscription(owner: self, key: key)
    }

    func unsubscribe(key: Int) {
        let removed = state.locked { $0.observers.remove(key, owner: self) }
        _ = removed
    }

    /// The subject as an observer.
    public func asObserver() -> BehaviorSubject<Element> { self }

    /// Drops every observer; later subscriptions and `value()` fail.
    public func dispose() {
        let observers = state.locked { state -> ObserverBag.Entries in
            state.disposed = true
            state.stopEvent = nil
            return state.observers.removeAll(owner: self)
        }
        _ = observers
    }
}
