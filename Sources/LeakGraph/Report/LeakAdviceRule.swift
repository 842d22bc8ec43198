/// How to break one kind of leaked cycle: which edge of the loop to cut and what to change in
/// the code. The core knows no library's types; a library that makes cycles of its own
/// registers rules for them with ``LeakAdvice/register(_:)`` (LeakGraphRx does for its
/// `SinkDisposer` and subjects, LeakGraphCombine for its subscriptions).
///
/// ```swift
/// LeakAdvice.register([
///     LeakAdviceRule(
///         name: "MyBus.subscriber", priority: 150, cut: .ownerTypeName("MyBus"),
///         advice: "the bus still holds its subscriber; call unsubscribe().")
/// ])
/// ```
public struct LeakAdviceRule: Sendable, Hashable {
    /// Which step of a loop a rule cuts.
    public enum StepMatch: Sendable, Hashable {
        /// Steps whose owner's type, without generic arguments or module, is exactly this
        /// (`SinkDisposer` matches `SinkDisposer` and `LeakGraphRx.SinkDisposer`).
        case ownerTypeName(String)
        /// Steps whose owner's type contains this text (`Subject` matches `PublishSubject<Int>`).
        case ownerTypeContains(String)
        /// Steps with one of these labels.
        case label([String])
    }

    /// A unique name; registering a rule with a name already registered replaces it.
    public var name: String
    /// Rules are tried in ascending priority after the user's own strong captures (which always
    /// come first) and before the generic rules (any capture, then a back reference).
    public var priority: Int
    /// The step this rule cuts: the first step of the loop that matches.
    public var cut: StepMatch
    /// What to change in the code, as a sentence.
    public var advice: String
    /// The change in a few words, for the end of a leak's one-sentence verdict
    /// (`dispose the subscription`); nil says "cut" and the edge's label.
    public var action: String?

    /// Creates a rule.
    public init(name: String, priority: Int, cut: StepMatch, advice: String, action: String? = nil) {
        self.name = name
        self.priority = priority
        self.cut = cut
        self.advice = advice
        self.action = action
    }

    /// Whether the step from an owner of type `ownerType` with `label` is one this rule cuts.
    func matches(ownerType: String, label: String) -> Bool {
        switch cut {
        case .ownerTypeName(let name): LeakTrace.baseName(ownerType) == name
        case .ownerTypeContains(let text): ownerType.contains(text)
        case .label(let labels): labels.contains(label)
        }
    }
}
