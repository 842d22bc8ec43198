import LeakGraph

/// The roles LeakGraphRx's objects report their references under.
extension EdgeLabel {
    /// A sink's (or adapter's) downstream observer.
    static let observer = EdgeLabel("observer")
    /// A sink's `SinkDisposer`.
    static let cancel = EdgeLabel("cancel")
    /// A `SinkDisposer`'s sink.
    static let sink = EdgeLabel("sink")
    /// A `SinkDisposer`'s upstream subscription, or an inner subscription held by a sink.
    static let subscription = EdgeLabel("subscription")
    /// An operator producer's upstream observable.
    static let source = EdgeLabel("source")
    /// A subject's (or connectable's) registered observers.
    static let observers = EdgeLabel("observers")
    /// A `DisposeBag`'s disposables, added by `disposed(by:)`.
    static let bag = EdgeLabel("bag")
    /// A subject subscription token's subject.
    static let subject = EdgeLabel("subject")
    /// The disposables held by a composite, binary or serial disposable.
    static let disposables = EdgeLabel("disposables")
    /// An inner observer's parent sink.
    static let parent = EdgeLabel("parent")
    /// A connectable observable's or share's current connection.
    static let connection = EdgeLabel("connection")
    /// The sources of a merge/concat/combineLatest/zip producer.
    static let sources = EdgeLabel("sources")
}

extension EdgeLabel {
    /// A sink's group of subscriptions (flatMap).
    static let group = EdgeLabel("group")
    /// A sink's subscription to its source, kept to dispose it early.
    static let sourceSubscription = EdgeLabel("sourceSubscription")
    /// A sink's current inner subscription (flatMapLatest, concat).
    static let current = EdgeLabel("current")
    /// A sink's subscription to a second source (take(until:)).
    static let otherSubscription = EdgeLabel("otherSubscription")
}
