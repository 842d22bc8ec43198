import LeakGraph

/// The trait of ``Completable``: no element, only completion or an error.
public enum CompletableTrait {}

/// A sequence that only completes or fails.
///
/// ```swift
/// let save: Completable = store.save(user)
/// save.subscribe(onCompleted: { print("saved") }, onError: { print($0) }).disposed(by: bag)
/// ```
public typealias Completable = PrimitiveSequence<CompletableTrait, Swift.Never>

/// What a ``Completable`` ends with.
public enum CompletableEvent {
    /// An error.
    case error(Swift.Error)
    /// Done.
    case completed
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// The callback a ``Completable``'s `create` closure reports its result to.
    public typealias CompletableObserver = (CompletableEvent) -> Void

    /// A completable that runs `subscribe` for each subscriber; the first result it reports wins.
    public static func create(subscribe: @escaping (@escaping CompletableObserver) -> Disposable) -> Completable {
        let source = Observable<Never>.create { observer in
            subscribe { event in
                switch event {
                case .error(let error): observer.on(.error(error))
                case .completed: observer.on(.completed)
                }
            }
        }
        return Completable(raw: source)
    }

    /// Subscribes a callback receiving the result once.
    public func subscribe(_ observer: @escaping (CompletableEvent) -> Void) -> Disposable {
        primitiveSequence.asObservable().subscribe(
            onError: { observer(.error($0)) }, onCompleted: { observer(.completed) })
    }

    /// Subscribes handlers for completion, the error and disposal.
    public func subscribe(
        onCompleted: (() -> Void)? = nil, onError: ((Swift.Error) -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        primitiveSequence.asObservable().subscribe(onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// A completable that fails with `error`.
    public static func error(_ error: Swift.Error) -> Completable {
        Completable(raw: .error(error))
    }

    /// A completable that never ends.
    public static func never() -> Completable {
        Completable(raw: .never())
    }

    /// A completable that completes at once.
    public static func empty() -> Completable {
        Completable(raw: .empty())
    }

    /// Calls the handlers around the result (before and after it is forwarded), around
    /// subscribing, and when the subscription ends.
    public func `do`(
        onError: ((Swift.Error) throws -> Void)? = nil, afterError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil, afterCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Completable {
        Completable(
            raw: primitiveSequence.asObservable().do(
                onError: onError, afterError: afterError, onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// This completable, then `second`'s element.
    ///
    /// ```swift
    /// login.andThen(loadProfile).subscribe(onSuccess: { show($0) })
    /// ```
    public func andThen<Next>(_ second: Single<Next>) -> Single<Next> {
        Single(raw: thenObservable(second.asObservable()))
    }

    /// This completable, then `second`.
    public func andThen<Next>(_ second: Maybe<Next>) -> Maybe<Next> {
        Maybe(raw: thenObservable(second.asObservable()))
    }

    /// This completable, then `second`.
    public func andThen(_ second: Completable) -> Completable {
        Completable(raw: thenObservable(second.asObservable()))
    }

    /// This completable, then `second`'s elements.
    public func andThen<Next>(_ second: Observable<Next>) -> Observable<Next> {
        thenObservable(second)
    }

    private func thenObservable<Next>(_ second: Observable<Next>) -> Observable<Next> {
        CompletableAndThen(first: primitiveSequence.asObservable(), second: second)
    }

    /// Runs the completables one after another.
    public static func concat(_ sources: Completable...) -> Completable {
        Completable(raw: Observable.concat(sources.map { $0.asObservable() }))
    }

    /// Runs the completables at once; completes when all have, fails with the first error.
    public static func zip(_ sources: Completable...) -> Completable {
        Completable(raw: Observable.merge(sources.map { $0.asObservable() }))
    }
}
