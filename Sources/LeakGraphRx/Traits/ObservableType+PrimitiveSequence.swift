import LeakGraph

extension ObservableType {
    /// The source as a ``Single``: its only element; fails with `RxError.noElements` when it
    /// completes empty and with `RxError.moreThanOneElement` at a second element.
    public func asSingle() -> Single<Element> {
        Single(raw: AsSingle(source: asObservable(), allowsEmpty: false))
    }

    /// The source as a ``Maybe``: its only element or nothing; fails with
    /// `RxError.moreThanOneElement` at a second element.
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: AsSingle(source: asObservable(), allowsEmpty: true))
    }

    /// The first element, or nil when the source completes empty.
    public func first() -> Single<Element?> {
        Single(raw: First(source: asObservable()))
    }

    /// Every element, in one array, when the source completes.
    ///
    /// ```swift
    /// Observable.of(1, 2).toArray().subscribe(onSuccess: { print($0) })   // [1, 2]
    /// ```
    public func toArray() -> Single<[Element]> {
        Single(raw: ToArray(source: asObservable()))
    }
}

extension ObservableType where Element == Never {
    /// The source as a ``Completable``.
    public func asCompletable() -> Completable {
        Completable(raw: asObservable())
    }
}
