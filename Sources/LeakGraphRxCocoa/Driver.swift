import LeakGraphRx

/// A ``SharedSequence`` that delivers on the main thread, never fails, and replays its latest
/// element to each new subscriber: the trait for state a view shows.
///
/// ```swift
/// let isBusy: Driver<Bool> = loading.asDriver(onErrorJustReturn: false)
/// isBusy.drive(spinner.rx.isAnimating).disposed(by: bag)
/// ```
public typealias Driver<Element> = SharedSequence<DriverSharingStrategy, Element>

/// ``Driver``'s strategy: the sharing scheduler, and `share(replay: 1, scope: .whileConnected)`.
public struct DriverSharingStrategy: SharingStrategyProtocol {
    /// ``SharingScheduler/make``'s scheduler.
    public static var scheduler: SchedulerType { SharingScheduler.make() }

    /// The latest element replayed, while someone subscribes.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(replay: 1, scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// `self` as a driver.
    public func asDriver() -> Driver<Element> { asSharedSequence() }
}

extension ObservableConvertibleType {
    /// The sequence as a driver, delivering on the main thread; an error becomes `element`.
    public func asDriver(onErrorJustReturn element: Element) -> Driver<Element> {
        asSharedSequence(onErrorJustReturn: element)
    }

    /// The sequence as a driver; an error switches to `fallback`.
    public func asDriver(onErrorDriveWith fallback: Driver<Element>) -> Driver<Element> {
        asSharedSequence(onErrorDriveWith: fallback)
    }

    /// The sequence as a driver; an error switches to the driver `recover` makes of it.
    public func asDriver(onErrorRecover recover: @escaping (_ error: Swift.Error) -> Driver<Element>) -> Driver<Element>
    {
        asSharedSequence(onErrorRecover: recover)
    }
}

extension InfallibleType {
    /// The infallible sequence as a driver, delivering on the main thread.
    public func asDriver() -> Driver<Element> {
        asSharedSequence(deliveredBy: DriverSharingStrategy.self)
    }
}

extension BehaviorRelay {
    /// The relay as a driver: its current value first, then its changes, on the main thread.
    public func asDriver() -> Driver<Element> {
        asSharedSequence(deliveredBy: DriverSharingStrategy.self)
    }
}
