import LeakGraphRx

/// A sequence that never fails, delivers its events on its sharing strategy's scheduler (the main
/// thread for ``Driver`` and ``Signal``), and shares one subscription to its source among its
/// subscribers: RxCocoa's traits for view models, without UIKit.
///
/// ```swift
/// let title: Driver<String> = viewModel.name.asDriver(onErrorJustReturn: "")
/// title.drive(onNext: { label.text = $0 }).disposed(by: bag)
/// ```
///
/// Every operator re-shares its result: two subscribers of `title.map(...)` run one subscription
/// upstream. The sinks and subscriptions underneath are LeakGraphRx's tracked objects: a `drive`
/// nobody disposes is a leak LeakGraph reports like any other subscription.
public struct SharedSequence<SharingStrategy: SharingStrategyProtocol, Element>: SharedSequenceConvertibleType,
    ObservableConvertibleType
{
    let source: Observable<Element>

    /// `source`, shared by the strategy.
    init(_ source: Observable<Element>) {
        self.source = SharingStrategy.share(source)
    }

    /// `source` as it is (already shared, or sharing nothing: a constant sequence).
    init(raw source: Observable<Element>) {
        self.source = source
    }

    /// `source` as a shared sequence as it is: the caller promises it never fails and delivers on
    /// the strategy's scheduler (RxCocoa's extension hook).
    public static func createUnsafe<Source: ObservableType>(source: Source) -> SharedSequence<
        SharingStrategy, Source.Element
    > {
        SharedSequence<SharingStrategy, Source.Element>(raw: source.asObservable())
    }

    /// The sequence as an observable.
    public func asObservable() -> Observable<Element> { source }

    /// `self`.
    public func asSharedSequence() -> SharedSequence<SharingStrategy, Element> { self }

    /// The sequence as an ``Infallible`` (it cannot fail).
    public func asInfallible() -> Infallible<Element> { asInfallible(onErrorFallbackTo: .empty()) }
}

/// How a ``SharedSequence`` shares its source and where it delivers its events.
public protocol SharingStrategyProtocol {
    /// Where every event of the sequences is delivered.
    static var scheduler: SchedulerType { get }

    /// `source` shared among the subscribers, for example `source.share(replay: 1)`.
    static func share<Element>(_ source: Observable<Element>) -> Observable<Element>
}

/// A type that converts to a ``SharedSequence``.
public protocol SharedSequenceConvertibleType: ObservableConvertibleType {
    /// The sharing strategy of the sequence.
    associatedtype SharingStrategy: SharingStrategyProtocol

    /// `self` as a shared sequence.
    func asSharedSequence() -> SharedSequence<SharingStrategy, Element>
}

extension SharedSequenceConvertibleType {
    /// The sequence as an observable.
    public func asObservable() -> Observable<Element> { asSharedSequence().asObservable() }
}

extension SharedSequence {
    /// A sequence that completes at once, on the strategy's scheduler.
    public static func empty() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.empty().subscribe(on: SharingStrategy.scheduler))
    }

    /// A sequence that sends nothing, ever.
    public static func never() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.never())
    }

    /// One element, then completion, on the strategy's scheduler.
    public static func just(_ element: Element) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.just(element).subscribe(on: SharingStrategy.scheduler))
    }

    /// The sequence `factory` makes for each subscription.
    public static func deferred(_ factory: @escaping () -> SharedSequence<SharingStrategy, Element>)
        -> SharedSequence<SharingStrategy, Element>
    {
        SharedSequence(Observable.deferred { factory().asObservable() })
    }

    /// `elements`, one by one on the strategy's scheduler.
    public static func of(_ elements: Element...) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.from(elements, scheduler: SharingStrategy.scheduler))
    }

    /// The elements of `array`, on the strategy's scheduler.
    public static func from(_ array: [Element]) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.from(array, scheduler: SharingStrategy.scheduler))
    }

    /// The elements of `sequence`, on the strategy's scheduler.
    public static func from<Sequence: Swift.Sequence>(_ sequence: Sequence) -> SharedSequence<
        SharingStrategy, Element
    > where Sequence.Element == Element {
        SharedSequence(raw: Observable.from(sequence, scheduler: SharingStrategy.scheduler))
    }

    /// The element of `optional` if there is one, then completion.
    public static func from(optional: Element?) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.from(optional: optional, scheduler: SharingStrategy.scheduler))
    }
}

extension SharedSequence where Element: RxAbstractInteger {
    /// 0, 1, 2, … every `period`, on the strategy's scheduler.
    public static func interval(_ period: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.interval(period, scheduler: SharingStrategy.scheduler))
    }

    /// 0 after `dueTime`, then 1, 2, … every `period`.
    public static func timer(_ dueTime: RxTimeInterval, period: RxTimeInterval) -> SharedSequence<
        SharingStrategy, Element
    > {
        SharedSequence(Observable.timer(dueTime, period: period, scheduler: SharingStrategy.scheduler))
    }
}

extension SharedSequence {
    /// The elements as an `AsyncStream` (a shared sequence cannot fail): `for await` ends when
    /// the sequence completes; cancelling the task disposes the subscription. Main-actor
    /// isolated, as RxCocoa's (a driver delivers on the main thread).
    @MainActor public var values: AsyncStream<Element> { asInfallible().values }
}
