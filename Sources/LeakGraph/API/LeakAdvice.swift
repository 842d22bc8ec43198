/// The fix advice rules libraries registered, which every leak description consults (test
/// failures, `leakgraph report`, the HTML page, the dump at exit).
///
/// A library registers its rules once, before the first of its objects can leak; the order of
/// registration does not matter (rules are ordered by ``LeakAdviceRule/priority``).
///
/// ```swift
/// LeakAdvice.register([
///     LeakAdviceRule(name: "MyBus.subscriber", priority: 150, cut: .ownerTypeName("MyBus"),
///                    advice: "the bus still holds its subscriber; call unsubscribe().")
/// ])
/// ```
public enum LeakAdvice {
    private static let rules = Locked<[LeakAdviceRule]>([])

    /// Adds `newRules`, replacing any registered rule with the same name.
    public static func register(_ newRules: [LeakAdviceRule]) {
        rules.withLock { rules in
            let names = Set(newRules.map(\.name))
            rules.removeAll { names.contains($0.name) }
            rules += newRules
            // Stable for equal priorities: by name, so that output never depends on the order
            // in which modules happened to register.
            rules.sort { ($0.priority, $0.name) < ($1.priority, $1.name) }
        }
    }

    /// The registered rules, in the order they are tried.
    public static var registeredRules: [LeakAdviceRule] {
        rules.withLock { $0 }
    }
}
