import LeakGraph

extension ObservableType {
    /// The element, if any, then the completion, while being subscribed to.
    ///
    /// ```swift
    /// Observable.from(optional: cachedUser)
    /// ```
    public static func from(optional: Element?) -> Observable<Element> {
        optional.map { .just($0) } ?? .empty()
    }

    /// The element, if any, then the completion, each a step on `scheduler`.
    public static func from(optional: Element?, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        .from(optional.map { [$0] } ?? [], scheduler: scheduler)
    }
}
