/// Something that receives a sequence's events.
///
/// Conforming types implement ``on(_:)``; `onNext`, `onError` and `onCompleted` are shorthands.
/// `onNext(_:)` and `onCompleted()` are requirements with default implementations (not only
/// extension methods, as in RxSwift): a conforming type's own methods of those names are what
/// operators call, so they must mean `on(.next(_:))` and `on(.completed)`.
///
/// ```swift
/// let subject = PublishSubject<Int>()
/// subject.onNext(1)   // same as subject.on(.next(1))
/// ```
public protocol ObserverType<Element> {
    /// The type of elements received.
    associatedtype Element

    /// Receives one event. Never called again after a terminal event by well-behaved sources.
    func on(_ event: Event<Element>)

    /// Receives one element: the same as `on(.next(element))`.
    ///
    /// LeakGraphRx's sinks and subjects implement it directly so that an element flows
    /// through a chain without building an `Event` at each step (in unspecialised generic code,
    /// each `Event<Element>` costs a generic metadata lookup).
    func onNext(_ element: Element)

    /// Receives the completion: the same as `on(.completed)`. Implemented directly where
    /// completing needs no `Event` (an inner subscription of a merge), for the same reason.
    func onCompleted()
}

extension ObserverType {
    /// Sends `.next(element)` (default implementation).
    @inlinable
    public func onNext(_ element: Element) { on(.next(element)) }

    /// Sends `.completed` (default implementation).
    @inlinable
    public func onCompleted() { on(.completed) }

    /// Sends `.error(error)`.
    @inlinable
    public func onError(_ error: Swift.Error) { on(.error(error)) }

    /// This observer as an ``AnyObserver``.
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }

    /// An observer that transforms elements with `transform` and forwards them to this one.
    ///
    /// - Parameter transform: Called for each element; a thrown error is forwarded as `.error`.
    /// - Returns: The mapping observer.
    public func mapObserver<Result>(_ transform: @escaping (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver { event in self.on(event.map(transform)) }
    }
}
