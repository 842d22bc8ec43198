import LeakGraph

/// A ``BehaviorSubject`` that only ever emits elements: it holds a current ``value``, gives it
/// to each new subscriber, and cannot fail or complete (RxRelay's `BehaviorRelay`).
///
/// ```swift
/// let name = BehaviorRelay(value: "")
/// name.subscribe(onNext: { print($0) }).disposed(by: bag)   // ""
/// name.accept("Ada")                                       // Ada
/// print(name.value)                                        // Ada
/// ```
public final class BehaviorRelay<Element>: TrackedObject, ObservableType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: the only state is the subject, which is thread safe.
    private let subject: BehaviorSubject<Element>

    /// A relay whose current value is `value`.
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
        super.init()
        addTrackedEdge(to: subject, label: .subject)
    }

    /// Makes `event` the current value and sends it to the current observers.
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// The current value.
    public var value: Element {
        // The subject can neither fail nor be disposed: only the relay reaches it, and the relay
        // sends elements only.
        guard let value = try? subject.value() else { preconditionFailure("a relay's subject cannot stop") }
        return value
    }

    /// Subscribes `observer`: it receives the current value at once, then later ones.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}

extension BehaviorRelay {
    /// The relay as an infallible (a relay never fails).
    public func asInfallible() -> Infallible<Element> {
        asInfallible(onErrorFallbackTo: .empty())
    }
}
