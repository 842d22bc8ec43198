import LeakGraph

/// A sequence of events; the base class of every producer and subject.
///
/// Every instance is a LeakGraph ``TrackedObject``: it appears in snapshots with its type
/// (`Map<Int, String>`), its references to its sources (`source` edges) and to the closures it
/// keeps (`capture` edges).
///
/// Thread safety: subscribing and disposing are safe from any thread.
public class Observable<Element>: TrackedObject, ObservableType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    /// Creates an observable (only subclasses in this module do).
    override init(label: String? = nil) {
        super.init(label: label)
    }

    /// Subscribes `observer`; subclasses implement it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        fatalError("Observable.subscribe is abstract")
    }

    /// Returns itself.
    public func asObservable() -> Observable<Element> { self }
}

/// ``Observable``, under a name that does not clash with other modules' `Observable` (the
/// Observation framework's macro, for one).
public typealias RxObservable<Element> = Observable<Element>
