import LeakGraph

/// The roles LeakGraphRx's objects report their references under.
extension EdgeLabel {
    /// A sink's (or adapter's) downstream observer.
    static let observer = EdgeLabel(rx: "observer")
    /// A sink's `SinkDisposer`.
    static let cancel = EdgeLabel(rx: "cancel")
    /// A `SinkDisposer`'s sink.
    static let sink = EdgeLabel(rx: "sink")
    /// A `SinkDisposer`'s upstream subscription, or an inner subscription held by a sink.
    static let subscription = EdgeLabel(rx: "subscription")
    /// An operator producer's upstream observable.
    static let source = EdgeLabel(rx: "source")
    /// A subject's (or connectable's) registered observers.
    static let observers = EdgeLabel(rx: "observers")
    /// A `DisposeBag`'s disposables, added by `disposed(by:)`.
    static let bag = EdgeLabel(rx: "bag")
    /// A subject subscription token's subject.
    static let subject = EdgeLabel(rx: "subject")
    /// The disposables held by a composite, binary or serial disposable.
    static let disposables = EdgeLabel(rx: "disposables")
    /// An inner observer's parent sink.
    static let parent = EdgeLabel(rx: "parent")
    /// A connectable observable's or share's current connection.
    static let connection = EdgeLabel(rx: "connection")
    /// The sources of a merge/concat/combineLatest/zip producer.
    static let sources = EdgeLabel(rx: "sources")
}

extension EdgeLabel {
    /// A sink's subscription to its source, kept to dispose it early.
    static let sourceSubscription = EdgeLabel(rx: "sourceSubscription")
    /// One of a sink's inner subscriptions (flatMap, merge, concatMap: one per running inner
    /// sequence).
    static let innerSubscription = EdgeLabel(rx: "innerSubscription")
    /// A sink's current inner subscription (flatMapLatest, concat).
    static let current = EdgeLabel(rx: "current")
    /// A sink's subscription to a second source (take(until:)).
    static let otherSubscription = EdgeLabel(rx: "otherSubscription")
    /// A virtual-time scheduler's pending actions.
    static let scheduled = EdgeLabel(rx: "scheduled")
    /// The relays a `bind(to:)` binding sends to.
    static let relays = EdgeLabel(rx: "relays")
}

extension EdgeLabel {
    /// Interns one of LeakGraphRx's labels, registering LeakGraphRx's fix advice on the way:
    /// the labels are created the first time LeakGraphRx declares a reference, before any of its
    /// objects can be in a leaked cycle, so the advice costs the subscription path nothing.
    /// (Registering again is harmless: rules replace those of the same name.)
    fileprivate init(rx name: String) {
        RxLeakAdvice.register()
        self.init(name)
    }
}
