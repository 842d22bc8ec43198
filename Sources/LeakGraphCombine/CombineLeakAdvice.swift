import LeakGraph

/// LeakGraphCombine's fix advice: a subscriber ⇄ subscription loop is cut at the subscription.
package enum CombineLeakAdvice {
    /// The rules, for tools that read dumps written by processes that used LeakGraphCombine.
    package static let rules = [
        LeakAdviceRule(
            name: "LeakGraphCombine.subscription", priority: 300,
            cut: .label([EdgeLabel.subscription.name, EdgeLabel.subscriber.name]),
            advice: "cancel the subscription (keep the AnyCancellable and let it go, or call cancel()).")
    ]

    /// Registers ``rules`` the first time it is read (every tracked subscription reads it).
    package static let registered: Void = LeakAdvice.register(rules)
}
