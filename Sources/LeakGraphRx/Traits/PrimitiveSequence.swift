import LeakGraph

/// An observable with a guarantee about its events, named by `Trait`: ``Single`` (one element
/// or an error), ``Maybe`` (at most one element), ``Completable`` (no element). A thin wrapper:
/// the events flow through the tracked observable it wraps, so leaks through a trait show the
/// same named cycles as any subscription.
///
/// ```swift
/// let user: Single<User> = api.loadUser()
/// user.subscribe(onSuccess: { print($0) }, onFailure: { print($0) }).disposed(by: bag)
/// ```
public struct PrimitiveSequence<Trait, Element> {
    let source: Observable<Element>

    init(raw: Observable<Element>) {
        source = raw
    }
}

/// A type that is a ``PrimitiveSequence``: the trait operators are written against it.
public protocol PrimitiveSequenceType<Trait, Element> {
    /// The trait (``SingleTrait``, ``MaybeTrait``, ``CompletableTrait``).
    associatedtype Trait
    /// The element type.
    associatedtype Element

    /// The sequence itself.
    var primitiveSequence: PrimitiveSequence<Trait, Element> { get }
}

extension PrimitiveSequence: PrimitiveSequenceType {
    /// The sequence itself.
    public var primitiveSequence: PrimitiveSequence<Trait, Element> { self }
}

extension PrimitiveSequence: ObservableConvertibleType {
    /// The trait as an ``Observable``.
    public func asObservable() -> Observable<Element> { source }
}

extension PrimitiveSequence {
    /// A trait built by `factory` for each subscriber.
    public static func deferred(_ factory: @escaping () throws -> PrimitiveSequence<Trait, Element>)
        -> PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence(raw: Observable.deferred { try factory().asObservable() })
    }

    /// Continues a failed trait with the one `handler` returns.
    public func `catch`(_ handler: @escaping (Swift.Error) throws -> PrimitiveSequence<Trait, Element>)
        -> PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence(raw: source.catch { try handler($0).asObservable() })
    }

    /// RxSwift 5's name of ``catch(_:)``.
    @available(*, deprecated, renamed: "catch(_:)")
    public func catchError(_ handler: @escaping (Swift.Error) throws -> PrimitiveSequence<Trait, Element>)
        -> PrimitiveSequence<Trait, Element>
    {
        `catch`(handler)
    }

    /// Subscribes again while it fails, up to `maxAttemptCount` times in all.
    public func retry(_ maxAttemptCount: Int) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.retry(maxAttemptCount))
    }

    /// Delivers the events on `scheduler`.
    public func observe(on scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.observe(on: scheduler))
    }

    /// Subscribes (and disposes) on `scheduler`.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.subscribe(on: scheduler))
    }
}
