import LeakGraphRx

/// A ``SharedSequence`` that delivers on the main thread, never fails, and replays nothing: the
/// trait for events (a tap, a message to show once).
///
/// ```swift
/// let saved: Signal<Void> = saveResult.asSignal(onErrorSignalWith: .empty())
/// saved.emit(onNext: { showToast() }).disposed(by: bag)
/// ```
public typealias Signal<Element> = SharedSequence<SignalSharingStrategy, Element>

/// ``Signal``'s strategy: the sharing scheduler, and `share(scope: .whileConnected)`.
public struct SignalSharingStrategy: SharingStrategyProtocol {
    /// ``SharingScheduler/make``'s scheduler.
    public static var scheduler: SchedulerType { SharingScheduler.make() }

    /// Shared while someone subscribes; nothing replayed.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == SignalSharingStrategy {
    /// `self` as a signal.
    public func asSignal() -> Signal<Element> { asSharedSequence() }
}

extension ObservableConvertibleType {
    /// The sequence as a signal, delivering on the main thread; an error becomes `element`.
    public func asSignal(onErrorJustReturn element: Element) -> Signal<Element> {
        asSharedSequence(onErrorJustReturn: element)
    }

    /// The sequence as a signal; an error switches to `fallback`.
    public func asSignal(onErrorSignalWith fallback: Signal<Element>) -> Signal<Element> {
        asSharedSequence(onErrorDriveWith: fallback)
    }

    /// The sequence as a signal; an error switches to the signal `recover` makes of it.
    public func asSignal(onErrorRecover recover: @escaping (_ error: Swift.Error) -> Signal<Element>) -> Signal<Element>
    {
        asSharedSequence(onErrorRecover: recover)
    }
}

extension InfallibleType {
    /// The infallible sequence as a signal, delivering on the main thread.
    public func asSignal() -> Signal<Element> {
        asSharedSequence(deliveredBy: SignalSharingStrategy.self)
    }
}

extension PublishRelay {
    /// The relay as a signal, on the main thread.
    public func asSignal() -> Signal<Element> {
        asSharedSequence(deliveredBy: SignalSharingStrategy.self)
    }
}
