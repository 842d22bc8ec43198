import LeakGraph

extension ObservableType {
    /// Pairs each element with `obj`, held weakly: once `obj` is gone the sequence completes.
    /// The usual way to use `self` in a chain without a capture cycle.
    ///
    /// ```swift
    /// taps.withUnretained(self) { owner, _ in owner.title }.subscribe(onNext: { print($0) })
    /// ```
    public func withUnretained<Object: AnyObject, Out>(
        _ obj: Object, resultSelector: @escaping (Object, Element) throws -> Out
    ) -> Observable<Out> {
        map { [weak obj] element -> Out in
            guard let obj else { throw ObjectReleased() }
            return try resultSelector(obj, element)
        }.catch { error in
            error is ObjectReleased ? .empty() : .error(error)
        }
    }

    /// Pairs each element with `obj`, held weakly, as `(obj, element)`.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> Observable<(Object, Element)> {
        withUnretained(obj) { ($0, $1) }
    }
}

/// The object of a `withUnretained` was released: the sequence completes.
private struct ObjectReleased: Error {}
