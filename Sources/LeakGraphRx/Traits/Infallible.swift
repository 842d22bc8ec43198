import LeakGraph

/// A sequence that cannot fail: it only sends elements and, maybe, a completion. RxSwift's
/// `Infallible`, a thin wrapper over a tracked observable (its sinks and subscriptions are
/// LeakGraphRx's, so leaks through it show as usual).
///
/// ```swift
/// let names: Infallible<String> = api.names().asInfallible(onErrorJustReturn: "")
/// names.subscribe(onNext: { print($0) })
/// ```
public protocol InfallibleType: ObservableConvertibleType {}

/// A sequence that cannot fail (see ``InfallibleType``).
public struct Infallible<Element>: InfallibleType {
    private let source: Observable<Element>

    /// Wraps `source`, which must never fail (an error from it stops the program with a message).
    init(_ source: Observable<Element>) {
        self.source = source
    }

    /// The sequence as an observable.
    public func asObservable() -> Observable<Element> { source }
}

/// What an ``Infallible`` can send.
public enum InfallibleEvent<Element> {
    /// An element.
    case next(Element)
    /// The end.
    case completed

    /// The event as an ``Event``.
    public var event: Event<Element> {
        switch self {
        case .next(let element): .next(element)
        case .completed: .completed
        }
    }
}

extension Infallible {
    /// The callback an `Infallible.create` closure sends events to.
    public typealias InfallibleObserver = (InfallibleEvent<Element>) -> Void

    /// An infallible that runs `subscribe` for each subscriber.
    ///
    /// ```swift
    /// Infallible<Int>.create { observer in
    ///     observer(.next(1))
    ///     observer(.completed)
    ///     return Disposables.create()
    /// }
    /// ```
    public static func create(subscribe: @escaping (@escaping InfallibleObserver) -> Disposable) -> Infallible<Element>
    {
        Infallible(Observable<Element>.create { observer in subscribe { observer.on($0.event) } })
    }
}

/// Stops the program: an infallible sequence failed, which its source promised never to do.
func infallibleFailed(_ error: Swift.Error) -> Never {
    fatalError("Infallible sequence failed with \(error): its source must never send an error")
}

extension InfallibleType {
    /// Subscribes with handlers that get `object` (held weakly: nothing is called once it is
    /// gone), as RxSwift's `subscribe(with:)`.
    public func subscribe<Object: AnyObject>(
        with object: Object, onNext: ((Object, Element) -> Void)? = nil, onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(
            with: object, onNext: onNext, onError: { _, error in infallibleFailed(error) },
            onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with handlers for elements, the completion and the disposal.
    public func subscribe(
        onNext: ((Element) -> Void)? = nil, onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(
            onNext: onNext, onError: { infallibleFailed($0) }, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes one handler for every event.
    public func subscribe(_ on: @escaping (InfallibleEvent<Element>) -> Void) -> Disposable {
        asObservable().subscribe { event in
            switch event {
            case .next(let element): on(.next(element))
            case .completed: on(.completed)
            case .error(let error): infallibleFailed(error)
            }
        }
    }
}

extension ObservableConvertibleType {
    /// An infallible that replaces an error with `element`, then completes.
    public func asInfallible(onErrorJustReturn element: Element) -> Infallible<Element> {
        Infallible(asObservable().catchAndReturn(element))
    }

    /// An infallible that continues with `infallible` after an error.
    public func asInfallible(onErrorFallbackTo infallible: Infallible<Element>) -> Infallible<Element> {
        Infallible(asObservable().catch { _ in infallible.asObservable() })
    }

    /// An infallible that continues with what `onErrorRecover` gives for the error.
    public func asInfallible(onErrorRecover: @escaping (Swift.Error) -> Infallible<Element>) -> Infallible<Element> {
        Infallible(asObservable().catch { onErrorRecover($0).asObservable() })
    }
}

extension InfallibleType {
    /// Itself, as an infallible.
    public func asInfallible() -> Infallible<Element> {
        Infallible(asObservable())
    }
}

extension InfallibleEvent: EventConvertible {}
