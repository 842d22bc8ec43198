import LeakGraph
import Synchronization

/// A subject that replays the last `bufferSize` elements (or all of them) to each new
/// subscriber, then sends later events; after termination, the buffer then the terminal event.
///
/// ```swift
/// let subject = ReplaySubject<Int>.create(bufferSize: 2)
/// subject.onNext(1); subject.onNext(2); subject.onNext(3)
/// _ = subject.subscribe(onNext: { print($0) })   // 2, 3
/// ```
///
/// Thread safe and re-entrant; observers are called after unlocking. Ownership is reported as
/// for ``PublishSubject``.
public final class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    UnsubscribeType
{
    /// The subject itself as its observer.
    public typealias SubjectObserverType = ReplaySubject<Element>

    // Thread-safe: all mutable state is in `state`, behind its mutex.
    private struct State {
        var observers = ObserverBag()
        var buffer: [Element] = []
        var stopEvent: Event<Element>?
        var disposed = false
    }

    private let state = Locked(State())
    private let bufferSize: Int

    private init(bufferSize: Int) {
        self.bufferSize = bufferSize
        super.init()
    }

    /// A subject replaying the last `bufferSize` elements.
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: max(0, bufferSize))
    }

    /// A subject replaying every element.
    public static func createUnbounded() -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: Int.max)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.locked { !$0.observers.isEmpty } }

    /// Whether the subject was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// Buffers and sends an element, or terminates; ignored after a terminal event.
    public func on(_ event: Event<Element>) {
        let bufferSize = self.bufferSize
        let result = state.locked { state -> (observers: ObserverBag.Entries, dropped: [Element]) in
            guard state.stopEvent == nil, !state.disposed else { return ([], []) }
            if case .next(let element) = event {
                var dropped: [Element] = []
                if bufferSize > 0 {
                    state.buffer.append(element)
                    if state.buffer.count > bufferSize {
                        dropped = [state.buffer.removeFirst()]
                    }
                }
                return (state.observers.entries, dropped)
            }
            state.stopEvent = event
            return (state.observers.removeAll(owner: self), [])
        }
        ObserverBag.dispatch(result.observers, event)
    }

    /// Subscribes `observer`: it receives the buffered elements, then later events.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let result = state.locked { state -> (key: Int?, buffer: [Element], stop: Event<Element>?) in
            if state.disposed { return (nil, [], .error(RxError.disposed(object: self))) }
            if let stopEvent = state.stopEvent { return (nil, state.buffer, stopEvent) }
            return (state.observers.insert(observer, owner: self), state.buffer, nil)
        }
        for element in result.buffer { observer.on(.next(element)) }
        if let stop = result.stop { observer.on(stop) }
        guard let key = result.key else { return Disposables.create() }
        return SubjectSubscription(owner: self, key: key)
    }

    func unsubscribe(key: Int) {
        let removed = state.locked { $0.observers.remove(key, owner: self) }
        _ = removed
    }

    /// The subject as an observer.
    public func asObserver() -> ReplaySubject<Element> { self }

    /// Drops every observer and the buffer.
    public func dispose() {
        let dropped = state.locked { state -> (ObserverBag.Entries, [Element]) in
            state.disposed = true
            state.stopEvent = nil
            let buffer = state.buffer
            state.buffer = []
            return (state.observers.removeAll(owner: self), buffer)
        }
        _ = dropped
    }
}
