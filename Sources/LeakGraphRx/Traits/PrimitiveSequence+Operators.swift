import LeakGraph

// The operators RxSwift gives every trait (`Single`, `Maybe`, `Completable`): each applies the
// observable operator to the trait's source, which keeps the trait's guarantee.

extension PrimitiveSequence {
    /// Delays each event by `dueTime` on `scheduler` (errors are not delayed).
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.delay(dueTime, scheduler: scheduler))
    }

    /// Subscribes `dueTime` later, on `scheduler`.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: SchedulerType)
        -> PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence(raw: source.delaySubscription(dueTime, scheduler: scheduler))
    }

    /// RxSwift 5's name for ``observe(on:)``.
    @available(*, deprecated, renamed: "observe(on:)")
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        observe(on: scheduler)
    }

    /// RxSwift 5's name for ``subscribe(on:)``.
    @available(*, deprecated, renamed: "subscribe(on:)")
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        subscribe(on: scheduler)
    }

    /// On an error of type `Error`, resubscribes when the sequence `notificationHandler` makes of
    /// the errors emits (see ``ObservableType/retry(when:)``).
    public func retry<Error: Swift.Error>(
        when notificationHandler: @escaping (Observable<Error>) -> some ObservableType
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.retry(when: notificationHandler))
    }

    /// On any error, resubscribes when the sequence `notificationHandler` makes of the errors emits.
    public func retry(when notificationHandler: @escaping (Observable<Swift.Error>) -> some ObservableType)
        -> PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence(raw: source.retry(when: notificationHandler))
    }

    /// RxSwift 5's name for ``retry(when:)``.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen<Error: Swift.Error>(
        _ notificationHandler: @escaping (Observable<Error>) -> some ObservableType
    ) -> PrimitiveSequence<Trait, Element> {
        retry(when: notificationHandler)
    }

    /// RxSwift 5's name for ``retry(when:)``.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen(_ notificationHandler: @escaping (Observable<Swift.Error>) -> some ObservableType)
        -> PrimitiveSequence<Trait, Element>
    {
        retry(when: notificationHandler)
    }

    /// Prints every event and subscription (see ``ObservableType/debug(_:trimOutput:file:line:function:)``).
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: source.debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }

    /// A resource made for each subscriber and disposed with its subscription, and the trait
    /// `primitiveSequenceFactory` makes with it.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping () throws -> Resource,
        primitiveSequenceFactory: @escaping (Resource) throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable.using(
                resourceFactory,
                observableFactory: { (resource: Resource) throws -> Observable<Element> in
                    try primitiveSequenceFactory(resource).asObservable()
                }))
    }

    /// Fails with `RxError.timeout` when no event comes within `dueTime`.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` when no event comes within `dueTime`.
    public func timeout(
        _ dueTime: RxTimeInterval, other: PrimitiveSequence<Trait, Element>, scheduler: SchedulerType
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}

extension PrimitiveSequenceType where Element: RxAbstractInteger {
    /// Emits 0 after `dueTime`, then completes.
    public static func timer(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable<Element>.timer(dueTime, scheduler: scheduler))
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// A single that succeeds with `element` on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Single<Element> {
        Single(raw: Observable.just(element, scheduler: scheduler))
    }

    /// The elements of every single of `collection`, combined, once all succeed; the first error fails it.
    public static func zip<Collection: Swift.Collection, Result>(
        _ collection: Collection, resultSelector: @escaping ([Element]) throws -> Result
    ) -> PrimitiveSequence<Trait, Result> where Collection.Element == PrimitiveSequence<Trait, Element> {
        if collection.isEmpty {
            return PrimitiveSequence<Trait, Result>.deferred { .just(try resultSelector([])) }
        }
        return PrimitiveSequence<Trait, Result>(
            raw: Observable.zip(collection.map { $0.asObservable() }, resultSelector: resultSelector))
    }

    /// The elements of every single of `collection`, as an array, once all succeed.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection) -> PrimitiveSequence<
        Trait, [Element]
    >
    where Collection.Element == PrimitiveSequence<Trait, Element> {
        if collection.isEmpty { return .just([]) }
        return PrimitiveSequence<Trait, [Element]>(raw: Observable.zip(collection.map { $0.asObservable() }))
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// A maybe that succeeds with `element` on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Maybe<Element> {
        Maybe(raw: Observable.just(element, scheduler: scheduler))
    }

    /// RxSwift 5's name for ``catchAndReturn(_:)``.
    @available(*, deprecated, renamed: "catchAndReturn(_:)")
    public func catchErrorJustReturn(_ element: Element) -> Maybe<Element> {
        catchAndReturn(element)
    }

    /// ``subscribe(onSuccess:onError:onCompleted:onDisposed:)`` with `object`, held weakly,
    /// handed to each handler; nothing is called once it is gone.
    public func subscribe<Object: AnyObject>(
        with object: Object, onSuccess: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil, onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onSuccess: { [weak object] element in if let object { onSuccess?(object, element) } },
            onError: { [weak object] error in if let object { onError?(object, error) } },
            onCompleted: { [weak object] in if let object { onCompleted?(object) } },
            onDisposed: { [weak object] in if let object { onDisposed?(object) } })
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// ``subscribe(onCompleted:onError:onDisposed:)`` with `object`, held weakly, handed to each
    /// handler; nothing is called once it is gone.
    public func subscribe<Object: AnyObject>(
        with object: Object, onCompleted: ((Object) -> Void)? = nil, onError: ((Object, Swift.Error) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onCompleted: { [weak object] in if let object { onCompleted?(object) } },
            onError: { [weak object] error in if let object { onError?(object, error) } },
            onDisposed: { [weak object] in if let object { onDisposed?(object) } })
    }

    /// This completable, then `second`.
    public func concat(_ second: Completable) -> Completable {
        Completable.concat(primitiveSequence, second)
    }

    /// The completables of `sequence`, one after another.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Completable
    where Sequence.Element == Completable {
        Completable(raw: Observable.concat(sequence.map { $0.asObservable() }))
    }

    /// The completables of `collection`, one after another.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Completable
    where Collection.Element == Completable {
        Completable(raw: Observable.concat(collection.map { $0.asObservable() }))
    }

    /// Completes when every completable of `sources` has; the first error fails it.
    public static func zip<Collection: Swift.Collection>(_ sources: Collection) -> Completable
    where Collection.Element == Completable {
        Completable(raw: Observable.merge(sources.map { $0.asObservable() }))
    }

    /// Completes when every completable of `sources` has; the first error fails it.
    public static func zip(_ sources: [Completable]) -> Completable {
        Completable(raw: Observable.merge(sources.map { $0.asObservable() }))
    }
}
