/// A push-based sequence of events that observers subscribe to.
///
/// ```swift
/// let disposable = Observable.of(1, 2).subscribe(onNext: { print($0) })   // 1, 2
/// ```
public protocol ObservableType<Element>: ObservableConvertibleType {
    /// Subscribes `observer` to the sequence's events.
    ///
    /// - Returns: The subscription; disposing it stops the events and releases resources.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element

}

/// A type that can be turned into an ``Observable``: every ``ObservableType``, and the traits.
///
/// ```swift
/// func log<Source: ObservableConvertibleType>(_ source: Source) -> Disposable {
///     source.asObservable().subscribe(onNext: { print($0) })
/// }
/// ```
public protocol ObservableConvertibleType<Element> {
    /// The type of elements the sequence produces.
    associatedtype Element

    /// The sequence as an ``Observable``.
    func asObservable() -> Observable<Element>
}

extension ObservableType {
    /// Wraps `self` in an ``Observable`` (default implementation).
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.subscribe(observer) }
    }
}
