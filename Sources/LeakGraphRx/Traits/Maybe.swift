import LeakGraph

/// The trait of ``Maybe``: at most one element, then completion; or an error.
public enum MaybeTrait {}

/// A sequence that emits one element, completes empty, or fails.
///
/// ```swift
/// let cached: Maybe<User> = cache.user(id: 7)
/// cached.subscribe(onSuccess: { show($0) }, onCompleted: { fetch() })
/// ```
public typealias Maybe<Element> = PrimitiveSequence<MaybeTrait, Element>

/// What a ``Maybe`` ends with.
public enum MaybeEvent<Element> {
    /// One element (then the maybe is over).
    case success(Element)
    /// An error.
    case error(Swift.Error)
    /// Over, with no element.
    case completed
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The callback a ``Maybe``'s `create` closure reports its result to.
    public typealias MaybeObserver = (MaybeEvent<Element>) -> Void

    /// A maybe that runs `subscribe` for each subscriber; the first result it reports wins.
    public static func create(subscribe: @escaping (@escaping MaybeObserver) -> Disposable) -> Maybe<Element> {
        let source = Observable<Element>.create { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.on(.next(element))
                    observer.on(.completed)
                case .error(let error): observer.on(.error(error))
                case .completed: observer.on(.completed)
                }
            }
        }
        return Maybe(raw: source)
    }

    /// Subscribes a callback receiving the result once.
    public func subscribe(_ observer: @escaping (MaybeEvent<Element>) -> Void) -> Disposable {
        // A success is the maybe's end: the completion that follows it is not reported again.
        let succeeded = Locked(false)
        return primitiveSequence.asObservable().subscribe(
            onNext: { element in
                succeeded.withLock { $0 = true }
                observer(.success(element))
            },
            onError: { observer(.error($0)) },
            onCompleted: { if !succeeded.withLock({ $0 }) { observer(.completed) } })
    }

    /// Subscribes handlers for the element, the error, an empty completion and disposal.
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil, onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let succeeded = Locked(false)
        return primitiveSequence.asObservable().subscribe(
            onNext: { element in
                succeeded.withLock { $0 = true }
                onSuccess?(element)
            },
            onError: onError,
            onCompleted: { if !succeeded.withLock({ $0 }) { onCompleted?() } },
            onDisposed: onDisposed)
    }

    /// A maybe of `element`.
    public static func just(_ element: Element) -> Maybe<Element> {
        Maybe(raw: .just(element))
    }

    /// A maybe that fails with `error`.
    public static func error(_ error: Swift.Error) -> Maybe<Element> {
        Maybe(raw: .error(error))
    }

    /// A maybe that never ends.
    public static func never() -> Maybe<Element> {
        Maybe(raw: .never())
    }

    /// A maybe that completes with no element.
    public static func empty() -> Maybe<Element> {
        Maybe(raw: .empty())
    }

    /// Calls the handlers around the maybe's result (before and after it is forwarded), around
    /// subscribing, and when the subscription ends.
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil, afterNext: ((Element) throws -> Void)? = nil,
        onError: ((Swift.Error) throws -> Void)? = nil, afterError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil, afterCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Maybe<Element> {
        Maybe(
            raw: primitiveSequence.asObservable().do(
                onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
                onCompleted: onCompleted, afterCompleted: afterCompleted, onSubscribe: onSubscribe,
                onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// The element, transformed.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.asObservable().map(transform))
    }

    /// The element when `predicate` accepts it.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.asObservable().filter(predicate))
    }

    /// The element transformed, when not nil.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.asObservable().compactMap(transform))
    }

    /// The maybe `selector` returns for the element.
    public func flatMap<Result>(_ selector: @escaping (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.asObservable().flatMap { try selector($0).asObservable() })
    }

    /// `element` when the maybe completes empty.
    public func ifEmpty(default element: Element) -> Single<Element> {
        Single(raw: primitiveSequence.asObservable().ifEmpty(switchTo: .just(element)))
    }

    /// The given maybe when this one completes empty.
    public func ifEmpty(switchTo other: Maybe<Element>) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.asObservable().ifEmpty(switchTo: other.asObservable()))
    }

    /// The given single when this maybe completes empty.
    public func ifEmpty(switchTo other: Single<Element>) -> Single<Element> {
        Single(raw: primitiveSequence.asObservable().ifEmpty(switchTo: other.asObservable()))
    }

    /// `element` instead of an error.
    public func catchAndReturn(_ element: Element) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.asObservable().catchAndReturn(element))
    }

    /// The maybe as a ``Completable`` (its element dropped).
    public func asCompletable() -> Completable {
        Completable(raw: primitiveSequence.asObservable().ignoreElements())
    }
}

extension ObservableType {
    /// The source's elements, or those of `other` when the source completes empty.
    ///
    /// ```swift
    /// cached.ifEmpty(switchTo: network).subscribe(onNext: { print($0) })
    /// ```
    public func ifEmpty(switchTo other: Observable<Element>) -> Observable<Element> {
        // A completion with no element is turned into `other`: an empty source "fails" into it.
        Observable.deferred {
            let emitted = Locked(false)
            return self.asObservable().do(onNext: { _ in emitted.withLock { $0 = true } })
                .concat(Observable.deferred { emitted.withLock { $0 } ? .empty() : other })
        }
    }

    /// The source's elements, or `element` when the source completes empty.
    public func ifEmpty(default element: Element) -> Observable<Element> {
        ifEmpty(switchTo: .just(element))
    }
}
