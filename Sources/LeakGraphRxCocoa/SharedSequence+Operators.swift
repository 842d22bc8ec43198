import LeakGraphRx

// Each operator applies LeakGraphRx's operator of the same name to the sequence and shares the
// result again by the strategy; time operators run on the strategy's scheduler.

extension SharedSequenceConvertibleType {
    /// Each element transformed.
    public func map<Result>(_ selector: @escaping (Element) -> Result) -> SharedSequence<SharingStrategy, Result> {
        SharedSequence(asObservable().map(selector))
    }

    /// Each element transformed, nil results dropped.
    public func compactMap<Result>(_ selector: @escaping (Element) -> Result?) -> SharedSequence<
        SharingStrategy, Result
    > {
        SharedSequence(asObservable().compactMap(selector))
    }

    /// The elements that satisfy `predicate`.
    public func filter(_ predicate: @escaping (Element) -> Bool) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().filter(predicate))
    }

    /// The elements of the sequence `selector` makes of the latest element (the previous one is
    /// disposed).
    public func flatMapLatest<Sharing, Result>(_ selector: @escaping (Element) -> SharedSequence<Sharing, Result>)
        -> SharedSequence<Sharing, Result>
    {
        SharedSequence(asObservable().flatMapLatest { selector($0).asObservable() })
    }

    /// The elements of the sequence `selector` makes of an element, ignoring elements while it runs.
    public func flatMapFirst<Sharing, Result>(_ selector: @escaping (Element) -> SharedSequence<Sharing, Result>)
        -> SharedSequence<Sharing, Result>
    {
        SharedSequence(asObservable().flatMapFirst { selector($0).asObservable() })
    }

    /// The elements of every sequence `selector` makes, merged.
    public func flatMap<Sharing, Result>(_ selector: @escaping (Element) -> SharedSequence<Sharing, Result>)
        -> SharedSequence<Sharing, Result>
    {
        SharedSequence(asObservable().flatMap { selector($0).asObservable() })
    }

    /// Side effects around the events (a shared sequence cannot fail: no error handlers).
    public func `do`(
        onNext: ((Element) -> Void)? = nil, afterNext: ((Element) -> Void)? = nil, onCompleted: (() -> Void)? = nil,
        afterCompleted: (() -> Void)? = nil, onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(
            asObservable().do(
                onNext: onNext, afterNext: afterNext, onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// Prints the events, as `Observable.debug` does.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(
            asObservable().debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }

    /// Elements whose key differs from the previous element's.
    public func distinctUntilChanged(_ keySelector: @escaping (Element) -> some Equatable) -> SharedSequence<
        SharingStrategy, Element
    > {
        SharedSequence(asObservable().distinctUntilChanged(keySelector))
    }

    /// Elements `comparer` says differ from the previous one.
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) -> Bool) -> SharedSequence<
        SharingStrategy, Element
    > {
        SharedSequence(asObservable().distinctUntilChanged(comparer))
    }

    /// Elements whose key `comparer` says differs from the previous element's.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping (Element) -> Key, comparer: @escaping (Key, Key) -> Bool
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged(keySelector, comparer: comparer))
    }

    /// The first element, then at most one element per `dueTime` (the latest one, with `latest`).
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().throttle(dueTime, latest: latest, scheduler: SharingStrategy.scheduler))
    }

    /// An element once `dueTime` passed without another.
    public func debounce(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().debounce(dueTime, scheduler: SharingStrategy.scheduler))
    }

    /// Each intermediate result of `accumulator` from `seed`.
    public func scan<A>(_ seed: A, accumulator: @escaping (A, Element) -> A) -> SharedSequence<SharingStrategy, A> {
        SharedSequence(asObservable().scan(seed, accumulator: accumulator))
    }

    /// Each element with `object`, held weakly (once it is gone the sequence completes).
    public func withUnretained<Object: AnyObject, Out>(
        _ object: Object, resultSelector: @escaping (Object, Element) -> Out
    ) -> SharedSequence<SharingStrategy, Out> {
        SharedSequence(asObservable().withUnretained(object, resultSelector: resultSelector))
    }

    /// Each element paired with `object`, held weakly.
    public func withUnretained<Object: AnyObject>(_ object: Object) -> SharedSequence<
        SharingStrategy, (Object, Element)
    > {
        SharedSequence(asObservable().withUnretained(object) { ($0, $1) })
    }

    /// Each element combined with the latest element of `second`, if it has sent one.
    public func withLatestFrom<Second: SharedSequenceConvertibleType, Result>(
        _ second: Second, resultSelector: @escaping (Element, Second.Element) -> Result
    ) -> SharedSequence<SharingStrategy, Result> {
        SharedSequence(asObservable().withLatestFrom(second.asSharedSequence(), resultSelector: resultSelector))
    }

    /// The latest element of `second` at each element, if it has sent one.
    public func withLatestFrom<Second: SharedSequenceConvertibleType>(_ second: Second) -> SharedSequence<
        SharingStrategy, Second.Element
    > {
        SharedSequence(asObservable().withLatestFrom(second.asSharedSequence()))
    }

    /// The elements after the first `count`.
    public func skip(_ count: Int) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().skip(count))
    }

    /// `element` first, then the sequence.
    public func startWith(_ element: Element) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().startWith(element))
    }

    /// The events `dueTime` later, on the strategy's scheduler.
    public func delay(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().delay(dueTime, scheduler: SharingStrategy.scheduler))
    }
}

extension SharedSequenceConvertibleType where Element: Equatable {
    /// Elements that differ from the previous one.
    public func distinctUntilChanged() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged())
    }
}

extension SharedSequenceConvertibleType where Element: SharedSequenceConvertibleType {
    /// The elements of the latest inner sequence.
    public func switchLatest() -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().map { $0.asSharedSequence().asObservable() }.switchLatest())
    }

    /// The elements of every inner sequence, merged.
    public func merge() -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().map { $0.asSharedSequence().asObservable() }.merge())
    }

    /// The elements of the inner sequences, at most `maxConcurrent` subscribed at once.
    public func merge(maxConcurrent: Int) -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().map { $0.asSharedSequence().asObservable() }.merge(maxConcurrent: maxConcurrent))
    }
}

extension SharedSequenceConvertibleType {
    /// The elements of every sequence of `sources`, merged.
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> SharedSequence<
        SharingStrategy, Element
    > where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// The elements of every sequence of `sources`, merged.
    public static func merge(_ sources: [SharedSequence<SharingStrategy, Element>]) -> SharedSequence<
        SharingStrategy, Element
    > {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// The elements of every sequence of `sources`, merged.
    public static func merge(_ sources: SharedSequence<SharingStrategy, Element>...) -> SharedSequence<
        SharingStrategy, Element
    > {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }
}

extension SharedSequence {
    /// The sequences of `sequence` one after the other.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> SharedSequence<
        SharingStrategy, Element
    > where Sequence.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.concat(sequence.map { $0.asObservable() }))
    }

    /// The sequences of `collection` one after the other.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> SharedSequence<
        SharingStrategy, Element
    > where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.concat(collection.map { $0.asObservable() }))
    }

    /// Rows of the n-th elements of the sequences of `collection`.
    public static func zip<Collection: Swift.Collection, Result>(
        _ collection: Collection, resultSelector: @escaping ([Element]) throws -> Result
    ) -> SharedSequence<SharingStrategy, Result> where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence<SharingStrategy, Result>(
            Observable.zip(collection.map { $0.asObservable() }, resultSelector: resultSelector))
    }

    /// Rows of the n-th elements of the sequences of `collection`, as arrays.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection) -> SharedSequence<
        SharingStrategy, [Element]
    > where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence<SharingStrategy, [Element]>(Observable.zip(collection.map { $0.asObservable() }))
    }

    /// The latest elements of the sequences of `collection`, combined.
    public static func combineLatest<Collection: Swift.Collection, Result>(
        _ collection: Collection, resultSelector: @escaping ([Element]) throws -> Result
    ) -> SharedSequence<SharingStrategy, Result> where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence<SharingStrategy, Result>(
            Observable.combineLatest(collection.map { $0.asObservable() }, resultSelector: resultSelector))
    }

    /// The latest elements of the sequences of `collection`, as arrays.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> SharedSequence<
        SharingStrategy, [Element]
    > where Collection.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence<SharingStrategy, [Element]>(Observable.combineLatest(collection.map { $0.asObservable() }))
    }
}
