/// A type-erased observer: forwards every event to a closure.
///
/// Holds what its closure captures strongly; LeakGraph finds those captures when the
/// `AnyObserver` is stored in a tracked object.
///
/// ```swift
/// let observer = AnyObserver<Int> { print($0) }
/// observer.onNext(1)   // next(1)
/// ```
public struct AnyObserver<Element>: ObserverType {
    /// The event handler type.
    public typealias EventHandler = (Event<Element>) -> Void

    /// The closure that receives events.
    public let observer: EventHandler

    /// An observer calling `eventHandler` for every event.
    ///
    /// - Parameter eventHandler: The closure receiving events.
    public init(eventHandler: @escaping EventHandler) {
        self.observer = eventHandler
    }

    /// An observer forwarding to `observer` (held strongly).
    ///
    /// - Parameter observer: The observer to forward to.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let any = observer as? AnyObserver<Element> {
            self.observer = any.observer
        } else {
            self.observer = observer.on
        }
    }

    /// Forwards `event` to the closure.
    @inlinable
    public func on(_ event: Event<Element>) { observer(event) }

    /// Returns itself.
    public func asObserver() -> AnyObserver<Element> { self }
}
