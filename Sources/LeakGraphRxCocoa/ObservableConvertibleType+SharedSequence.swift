import LeakGraphRx

extension ObservableConvertibleType {
    /// The sequence as a shared sequence of strategy `S`, delivering on its scheduler; an error
    /// becomes `element`. (`asDriver(onErrorJustReturn:)` and `asSignal(onErrorJustReturn:)` are
    /// this with their strategy.)
    public func asSharedSequence<S>(sharingStrategy _: S.Type = S.self, onErrorJustReturn element: Element)
        -> SharedSequence<S, Element>
    {
        SharedSequence(asObservable().observe(on: S.scheduler).catchAndReturn(element))
    }

    /// The sequence as a shared sequence of strategy `S`; an error switches to `fallback`.
    public func asSharedSequence<S>(
        sharingStrategy _: S.Type = S.self, onErrorDriveWith fallback: SharedSequence<S, Element>
    ) -> SharedSequence<S, Element> {
        SharedSequence(asObservable().observe(on: S.scheduler).catch { _ in fallback.asObservable() })
    }

    /// The sequence as a shared sequence of strategy `S`; an error switches to the sequence
    /// `recover` makes of it.
    public func asSharedSequence<S>(
        sharingStrategy _: S.Type = S.self,
        onErrorRecover recover: @escaping (_ error: Swift.Error) -> SharedSequence<S, Element>
    ) -> SharedSequence<S, Element> {
        SharedSequence(asObservable().observe(on: S.scheduler).catch { recover($0).asObservable() })
    }
}

extension ObservableConvertibleType {
    /// The sequence delivered on strategy `S`'s scheduler and shared by it, as it is (for a
    /// sequence that cannot fail: an infallible, a relay).
    func asSharedSequence<S: SharingStrategyProtocol>(deliveredBy _: S.Type) -> SharedSequence<S, Element> {
        SharedSequence(asObservable().observe(on: S.scheduler))
    }
}
