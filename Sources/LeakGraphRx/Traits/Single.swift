import LeakGraph

/// The trait of ``Single``: exactly one element, or an error.
public enum SingleTrait {}

/// A sequence that emits exactly one element or fails.
///
/// ```swift
/// let answer = Single<Int>.create { observer in
///     observer(.success(42))
///     return Disposables.create()
/// }
/// answer.subscribe(onSuccess: { print($0) })   // 42
/// ```
public typealias Single<Element> = PrimitiveSequence<SingleTrait, Element>

/// What a ``Single`` ends with: its element, or its error.
public typealias SingleEvent<Element> = Result<Element, Swift.Error>

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The callback a ``Single``'s `create` closure reports its result to.
    public typealias SingleObserver = (SingleEvent<Element>) -> Void

    /// A single that runs `subscribe` for each subscriber; the first result it reports wins.
    public static func create(subscribe: @escaping (@escaping SingleObserver) -> Disposable) -> Single<Element> {
        let source = Observable<Element>.create { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.on(.next(element))
                    observer.on(.completed)
                case .failure(let error): observer.on(.error(error))
                }
            }
        }
        return Single(raw: source)
    }

    /// Subscribes a callback receiving the result once.
    public func subscribe(_ observer: @escaping (SingleEvent<Element>) -> Void) -> Disposable {
        primitiveSequence.asObservable().subscribe(
            onNext: { observer(.success($0)) }, onError: { observer(.failure($0)) })
    }

    /// Subscribes handlers for the element, the error and disposal.
    ///
    /// ```swift
    /// load().subscribe(onSuccess: { show($0) }, onFailure: { report($0) }).disposed(by: bag)
    /// ```
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil, onFailure: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        primitiveSequence.asObservable().subscribe(onNext: onSuccess, onError: onFailure, onDisposed: onDisposed)
    }

    /// RxSwift 6.0's name of ``subscribe(onSuccess:onFailure:onDisposed:)``.
    @available(*, deprecated, renamed: "subscribe(onSuccess:onFailure:onDisposed:)")
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil, onError: @escaping (Swift.Error) -> Void,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        subscribe(onSuccess: onSuccess, onFailure: onError, onDisposed: onDisposed)
    }

    /// ``subscribe(onSuccess:onFailure:onDisposed:)`` with `object` passed to the handlers and
    /// held weakly (once it is deallocated, they are no longer called).
    public func subscribe<Object: AnyObject>(
        with object: Object, onSuccess: ((Object, Element) -> Void)? = nil,
        onFailure: ((Object, Swift.Error) -> Void)? = nil, onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        primitiveSequence.asObservable().subscribe(
            with: object, onNext: onSuccess, onError: onFailure, onDisposed: onDisposed)
    }

    /// A single of `element`.
    public static func just(_ element: Element) -> Single<Element> {
        Single(raw: .just(element))
    }

    /// A single that fails with `error`.
    public static func error(_ error: Swift.Error) -> Single<Element> {
        Single(raw: .error(error))
    }

    /// A single that never ends.
    public static func never() -> Single<Element> {
        Single(raw: .never())
    }

    /// Calls the handlers around the single's result (before and after it is forwarded),
    /// around subscribing, and when the subscription ends.
    public func `do`(
        onSuccess: ((Element) throws -> Void)? = nil, afterSuccess: ((Element) throws -> Void)? = nil,
        onError: ((Swift.Error) throws -> Void)? = nil, afterError: ((Swift.Error) throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Single<Element> {
        Single(
            raw: primitiveSequence.asObservable().do(
                onNext: onSuccess, afterNext: afterSuccess, onError: onError, afterError: afterError,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// The element, transformed.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Single<Result> {
        Single(raw: primitiveSequence.asObservable().map(transform))
    }

    /// The element when `predicate` accepts it: a ``Maybe``.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.asObservable().filter(predicate))
    }

    /// The element transformed, when not nil: a ``Maybe``.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.asObservable().compactMap(transform))
    }

    /// The single `selector` returns for the element.
    public func flatMap<Result>(_ selector: @escaping (Element) throws -> Single<Result>) -> Single<Result> {
        Single(raw: primitiveSequence.asObservable().flatMap { try selector($0).asObservable() })
    }

    /// The maybe `selector` returns for the element.
    public func flatMapMaybe<Result>(_ selector: @escaping (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.asObservable().flatMap { try selector($0).asObservable() })
    }

    /// The completable `selector` returns for the element.
    public func flatMapCompletable(_ selector: @escaping (Element) throws -> Completable) -> Completable {
        Completable(raw: primitiveSequence.asObservable().flatMap { try selector($0).asObservable() })
    }

    /// `element` instead of an error.
    public func catchAndReturn(_ element: Element) -> Single<Element> {
        Single(raw: primitiveSequence.asObservable().catchAndReturn(element))
    }

    /// RxSwift 5's name of ``catchAndReturn(_:)``.
    @available(*, deprecated, renamed: "catchAndReturn(_:)")
    public func catchErrorJustReturn(_ element: Element) -> Single<Element> {
        catchAndReturn(element)
    }

    /// The single as a ``Maybe``.
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: primitiveSequence.asObservable())
    }

    /// The single as a ``Completable`` (its element dropped).
    public func asCompletable() -> Completable {
        Completable(raw: primitiveSequence.asObservable().ignoreElements())
    }
}
