import LeakGraph

/// LeakGraphCombine's fix advice: a subscriber ⇄ subscription loop is cut at the subscription.
package enum CombineLeakAdvice {
    /// The rules, for tools that read dumps written by processes that used LeakGraphCombine.
    package static let rules = [
        LeakAdviceRule(
            name: "LeakGraphCombine.subscription", priority: 300,
            // The texts of `EdgeLabel.subscription` and `.subscriber`, spelled out: creating those
            // labels registers these rules.
            cut: .label(["subscription", "subscriber"]),
            advice: "cancel the subscription (keep the AnyCancellable and let it go, or call cancel()).",
            action: "cancel the subscription")
    ]
}
