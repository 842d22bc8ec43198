import LeakGraph

/// A ``ReplaySubject`` that only ever emits elements: each new subscriber first receives the
/// buffered elements (RxRelay's `ReplayRelay`).
///
/// ```swift
/// let log = ReplayRelay<String>.create(bufferSize: 2)
/// log.accept("a"); log.accept("b"); log.accept("c")
/// log.subscribe(onNext: { print($0) }).disposed(by: bag)   // b, c
/// ```
public final class ReplayRelay<Element>: TrackedObject, ObservableType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: the only state is the subject, which is thread safe.
    private let subject: ReplaySubject<Element>

    private init(subject: ReplaySubject<Element>) {
        self.subject = subject
        super.init()
        addTrackedEdge(to: subject, label: .subject)
    }

    /// A relay replaying the last `bufferSize` elements to each new subscriber.
    public static func create(bufferSize: Int) -> ReplayRelay<Element> {
        ReplayRelay(subject: ReplaySubject.create(bufferSize: bufferSize))
    }

    /// A relay replaying every element it has received to each new subscriber.
    public static func createUnbound() -> ReplayRelay<Element> {
        ReplayRelay(subject: ReplaySubject.createUnbounded())
    }

    /// Buffers `event` and sends it to the current observers.
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// Subscribes `observer`: it receives the buffered elements at once, then later ones.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}

extension ReplayRelay {
    /// The relay as an infallible (a relay never fails).
    public func asInfallible() -> Infallible<Element> {
        asInfallible(onErrorFallbackTo: .empty())
    }
}
