import LeakGraph

/// LeakGraphRx's fix advice: the two ways its own types close a leaked loop.
package enum RxLeakAdvice {
    /// The rules, for tools that read dumps written by processes that used LeakGraphRx.
    package static let rules = [
        LeakAdviceRule(
            name: "LeakGraphRx.SinkDisposer", priority: 100, cut: .ownerTypeName("SinkDisposer"),
            advice: "the subscription was never disposed and its source never completed; keep the Disposable that "
                + "subscribe returns and dispose it, or add .disposed(by: bag) to a bag its owner releases.",
            action: "dispose the subscription (or complete its source)"),
        LeakAdviceRule(
            name: "LeakGraphRx.Subject", priority: 200, cut: .ownerTypeContains("Subject"),
            advice: "the subject still holds its subscriber; dispose the subscription or complete the subject.",
            action: "dispose the subscription or complete the subject"),
    ]

    /// Registers ``rules`` and ``closureHolderPrefixes`` (idempotent).
    package static func register() {
        LeakAdvice.register(rules)
        LeakAdvice.registerLibraryClosureHolders(typePrefixes: closureHolderPrefixes)
        LeakAdvice.registerDisposalLabels(disposalLabels)
    }

    /// The labels of LeakGraphRx's references that only dispose: a sink's `SinkDisposer`, a
    /// disposer's sink and upstream subscription, bags and composites, a sink's inner
    /// subscriptions. No event travels along them.
    /// (`subscription` only from the owners that mean it so: LeakGraphCombine's subscribers
    /// request elements through theirs.)
    package static let disposalLabels = [
        "cancel", "sink", "SinkDisposer.subscription", "Connection.subscription", "bag", "disposables",
        "current", "otherSubscription", "sourceSubscription", "innerSubscription",
    ]

    /// LeakGraphRx's types that keep closures (`AnonymousObserver`, `AnonymousDisposable`,
    /// `AnonymousObservableSink`, …): an unnamed capture they hold is not blamed on the user.
    package static let closureHolderPrefixes = ["Anonymous"]
}
