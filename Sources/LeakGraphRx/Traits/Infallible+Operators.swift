import LeakGraph

// The operators RxSwift gives `Infallible`: each wraps the observable operator of the same name
// (an operator cannot make an infallible source fail, and the closures here do not throw).

// On the protocol, as in RxSwift: `Self.just(…)` and `I.never()` in generic code over
// `InfallibleType` compile too.
extension InfallibleType {
    /// An infallible that sends `element`, then completes.
    public static func just(_ element: Element) -> Infallible<Element> { Infallible(.just(element)) }

    /// `just` on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Infallible<Element> {
        Infallible(.just(element, scheduler: scheduler))
    }

    /// An infallible that never sends anything.
    public static func never() -> Infallible<Element> { Infallible(.never()) }

    /// An infallible that completes at once.
    public static func empty() -> Infallible<Element> { Infallible(.empty()) }

    /// An infallible made by `observableFactory` for each subscriber (a thrown error stops the
    /// program: the factory must not throw).
    public static func deferred(_ observableFactory: @escaping () throws -> Infallible<Element>) -> Infallible<Element>
    {
        Infallible(.deferred { try observableFactory().asObservable() })
    }

    /// Sends the sources' elements one source after another.
    public static func concat(_ sources: Infallible<Element>...) -> Infallible<Element> {
        Infallible(.concat(sources.map { $0.asObservable() }))
    }

    /// Merges the sources' elements.
    public static func merge(_ sources: Infallible<Element>...) -> Infallible<Element> {
        Infallible(.merge(sources.map { $0.asObservable() }))
    }

    /// Merges the sources' elements.
    public static func merge(_ sources: [Infallible<Element>]) -> Infallible<Element> {
        Infallible(.merge(sources.map { $0.asObservable() }))
    }
}

extension Infallible {
    /// An infallible that sends `elements`, then completes.
    public static func of(
        _ elements: Element..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Infallible<Element> {
        Infallible(.from(elements, scheduler: scheduler))
    }

    /// An infallible that sends the elements of `array`, then completes.
    public static func from(_ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Infallible<Element>
    {
        Infallible(.from(array, scheduler: scheduler))
    }

    /// An infallible that sends the elements of `sequence`, then completes.
    public static func from<Elements: Swift.Sequence>(
        _ sequence: Elements, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Infallible<Element> where Elements.Element == Element {
        Infallible(.from(sequence, scheduler: scheduler))
    }
}

extension InfallibleType {
    /// Elements that satisfy `predicate`.
    public func filter(_ predicate: @escaping (Element) -> Bool) -> Infallible<Element> {
        Infallible(asObservable().filter(predicate))
    }

    /// Each element transformed.
    public func map<Result>(_ transform: @escaping (Element) -> Result) -> Infallible<Result> {
        Infallible(asObservable().map(transform))
    }

    /// Each element transformed, nils dropped.
    public func compactMap<Result>(_ transform: @escaping (Element) -> Result?) -> Infallible<Result> {
        Infallible(asObservable().compactMap(transform))
    }

    /// Elements that differ from the previous one by `comparer`.
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) throws -> Bool) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(comparer))
    }

    /// Elements after a quiet period of `dueTime`.
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Infallible<Element> {
        Infallible(asObservable().debounce(dueTime, scheduler: scheduler))
    }

    /// At most one element per `dueTime`.
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType)
        -> Infallible<Element>
    {
        Infallible(asObservable().throttle(dueTime, latest: latest, scheduler: scheduler))
    }

    /// Merges the infallibles `selector` makes of each element.
    public func flatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) -> Source) -> Infallible<
        Source.Element
    > {
        Infallible(asObservable().flatMap { selector($0).asObservable() })
    }

    /// Follows only the infallible made of the latest element.
    public func flatMapLatest<Source: ObservableConvertibleType>(_ selector: @escaping (Element) -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(asObservable().flatMapLatest { selector($0).asObservable() })
    }

    /// Ignores elements while the infallible made of an earlier one still runs.
    public func flatMapFirst<Source: ObservableConvertibleType>(_ selector: @escaping (Element) -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(asObservable().flatMapFirst { selector($0).asObservable() })
    }

    /// Runs the infallibles made of each element one after another.
    public func concatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(asObservable().concatMap { selector($0).asObservable() })
    }

    /// This sequence, then `second`.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Infallible<Element>
    where Source.Element == Element {
        Infallible(Observable.concat(asObservable(), second.asObservable()))
    }

    /// Side effects around each event (the handlers must not throw).
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil, afterNext: ((Element) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil, afterCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Infallible<Element> {
        Infallible(
            asObservable().do(
                onNext: onNext, afterNext: afterNext, onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// Running accumulation, mutating a seed.
    public func scan<Seed>(into seed: Seed, accumulator: @escaping (inout Seed, Element) -> Void) -> Infallible<Seed> {
        Infallible(asObservable().scan(into: seed, accumulator: accumulator))
    }

    /// Running accumulation.
    public func scan<Seed>(_ seed: Seed, accumulator: @escaping (Seed, Element) -> Seed) -> Infallible<Seed> {
        Infallible(asObservable().scan(seed, accumulator: accumulator))
    }

    /// `element` first.
    public func startWith(_ element: Element) -> Infallible<Element> {
        Infallible(asObservable().startWith(element))
    }

    /// The first `count` elements.
    public func take(_ count: Int) -> Infallible<Element> {
        Infallible(asObservable().take(count))
    }

    /// Elements until `other` emits.
    public func take(until other: some ObservableType) -> Infallible<Element> {
        Infallible(asObservable().take(until: other))
    }

    /// Elements for `duration`.
    public func take(for duration: RxTimeInterval, scheduler: SchedulerType) -> Infallible<Element> {
        Infallible(asObservable().take(for: duration, scheduler: scheduler))
    }

    /// Elements after the first that fails `predicate`.
    public func skip(while predicate: @escaping (Element) throws -> Bool) -> Infallible<Element> {
        Infallible(asObservable().skip(while: predicate))
    }

    /// Shares one subscription, replaying the last `replay` elements.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Infallible<Element> {
        Infallible(asObservable().share(replay: replay, scope: scope))
    }

    /// Each element with the latest of `second`.
    public func withLatestFrom<Source: InfallibleType, ResultType>(
        _ second: Source, resultSelector: @escaping (Element, Source.Element) throws -> ResultType
    ) -> Infallible<ResultType> {
        Infallible(asObservable().withLatestFrom(second.asObservable(), resultSelector: resultSelector))
    }

    /// The latest of `second` at each element.
    public func withLatestFrom<Source: InfallibleType>(_ second: Source) -> Infallible<Source.Element> {
        Infallible(asObservable().withLatestFrom(second.asObservable()))
    }
}

extension InfallibleType where Element: Equatable {
    /// Elements that differ from the previous one.
    public func distinctUntilChanged() -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged())
    }
}

extension Infallible {
    /// `combineLatest` of two infallibles.
    public static func combineLatest<A: InfallibleType, B: InfallibleType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Infallible<Element> {
        Infallible(Observable.combineLatest(a.asObservable(), b.asObservable(), resultSelector: resultSelector))
    }
}

extension InfallibleType {
    /// Elements whose key differs from the previous element's.
    public func distinctUntilChanged(_ keySelector: @escaping (Element) throws -> some Equatable) -> Infallible<Element>
    {
        Infallible(asObservable().distinctUntilChanged(keySelector))
    }

    /// Elements whose key differs from the previous element's by `comparer`.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping (Element) throws -> Key, comparer: @escaping (Key, Key) throws -> Bool
    ) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(keySelector, comparer: comparer))
    }

    /// Elements whose value at `keyPath` differs from the previous element's.
    public func distinctUntilChanged(at keyPath: KeyPath<Element, some Equatable>) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(at: keyPath))
    }

    /// The infallibles of `sequence`, one after another.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Infallible<Element>
    where Sequence.Element == Infallible<Element> {
        Infallible(Observable.concat(sequence.map { $0.asObservable() }))
    }

    /// The infallibles of `collection`, one after another.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Infallible<Element>
    where Collection.Element == Infallible<Element> {
        Infallible(Observable.concat(collection.map { $0.asObservable() }))
    }

    /// The elements of every infallible of `sources` as they come. (RxSwift 6.10 concatenates
    /// them here, unlike its other `merge` forms: LeakGraphRx merges, as the name says.)
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Infallible<Element>
    where Collection.Element == Infallible<Element> {
        Infallible(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// Elements until `other` emits an element.
    public func take(until other: some InfallibleType) -> Infallible<Element> {
        Infallible(asObservable().take(until: other.asObservable()))
    }

    /// Elements until one satisfies `predicate` (included with `.inclusive`).
    public func take(until predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive)
        -> Infallible<Element>
    {
        Infallible(asObservable().take(until: predicate, behavior: behavior))
    }

    /// Elements while they satisfy `predicate` (the first that does not is included with `.inclusive`).
    public func take(while predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive)
        -> Infallible<Element>
    {
        Infallible(asObservable().take(while: predicate, behavior: behavior))
    }

    /// Elements after `other` emits an element.
    public func skip(until other: some ObservableType) -> Infallible<Element> {
        Infallible(asObservable().skip(until: other))
    }

    /// Each element with `obj`, held weakly; completes when `obj` is gone.
    public func withUnretained<Object: AnyObject, Out>(
        _ obj: Object, resultSelector: @escaping (Object, Element) -> Out
    ) -> Infallible<Out> {
        Infallible(asObservable().withUnretained(obj, resultSelector: resultSelector))
    }

    /// Each element paired with `obj`, held weakly; completes when `obj` is gone.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> Infallible<(Object, Element)> {
        withUnretained(obj) { ($0, $1) }
    }

    /// Prints every event and subscription, as ``ObservableType/debug(_:trimOutput:file:line:function:)``.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> Infallible<Element> {
        Infallible(
            asObservable().debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }

    /// `resultSelector` of the latest element of every infallible of `collection`, once all have one.
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection, resultSelector: @escaping ([Collection.Element.Element]) throws -> Element
    ) -> Infallible<Element> where Collection.Element: InfallibleType {
        Infallible(Observable.combineLatest(collection.map { $0.asObservable() }, resultSelector: resultSelector))
    }

    /// The latest element of every infallible of `collection`, as an array, once all have one.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> Infallible<[Element]>
    where Collection.Element: InfallibleType, Collection.Element.Element == Element {
        Infallible<[Element]>(Observable.combineLatest(collection.map { $0.asObservable() }))
    }
}
