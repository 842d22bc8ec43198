import LeakGraph

/// A ``PublishSubject`` that only ever emits elements: it cannot fail or complete
/// (RxRelay's `PublishRelay`).
///
/// The relay holds its subject (`subject` edge), which holds its observers: a subscription
/// never disposed keeps the observer alive as long as the relay lives.
///
/// ```swift
/// let taps = PublishRelay<Void>()
/// taps.subscribe(onNext: { print("tap") }).disposed(by: bag)
/// taps.accept(())   // tap
/// ```
public final class PublishRelay<Element>: TrackedObject, ObservableType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: the only state is the subject, which is thread safe.
    private let subject: PublishSubject<Element>

    /// A relay with no observers.
    public init() {
        subject = PublishSubject()
        super.init()
        addTrackedEdge(to: subject, label: .subject)
    }

    /// Sends `event` to the current observers.
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// Subscribes `observer` to later elements.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}

extension PublishRelay {
    /// The relay as an infallible (a relay never fails).
    public func asInfallible() -> Infallible<Element> {
        asInfallible(onErrorFallbackTo: .empty())
    }
}
