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
    private static let rules = Locked<[LeakAdviceRule]>([], heldAcrossFork: true)
    private static let closureHolders = Locked<Set<String>>([], heldAcrossFork: true)
    private static let disposal = Locked<Set<String>>([], heldAcrossFork: true)

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

    /// Declares types (by name prefix) of a library that keep closures of their own making:
    /// when a captured closure's name is unknown (no symbols), a capture held by one of them is
    /// not blamed on the user's code, so the advice falls to the library's rules instead.
    ///
    /// ```swift
    /// LeakAdvice.registerLibraryClosureHolders(typePrefixes: ["AnonymousObserver"])
    /// ```
    public static func registerLibraryClosureHolders(typePrefixes: [String]) {
        closureHolders.withLock { $0.formUnion(typePrefixes) }
    }

    /// The type name prefixes declared with ``registerLibraryClosureHolders(typePrefixes:)``,
    /// sorted.
    public static var libraryClosureHolderPrefixes: [String] {
        closureHolders.withLock { $0.sorted() }
    }

    /// Declares labels under which a library's declared references only dispose something (a
    /// subscription's handle on its upstream work, a bag's disposables): no event travels along
    /// them, so the lifecycle analysis does not follow them when it asks whether anything outside
    /// can still send a subscription an event (see ``LifecycleAnalysis``). Only edges declared
    /// through the tracking API count, never fields found by reflection. A label alone applies to
    /// every owner; `Owner.label` only to owners of type `Owner` (its name without generic
    /// arguments or module), for a label another library uses in another sense.
    ///
    /// ```swift
    /// LeakAdvice.registerDisposalLabels(["cancel", "SinkDisposer.subscription"])
    /// ```
    public static func registerDisposalLabels(_ labels: [String]) {
        disposal.withLock { $0.formUnion(labels) }
    }

    /// The labels declared with ``registerDisposalLabels(_:)``.
    public static var disposalLabels: Set<String> {
        disposal.withLock { $0 }
    }
}
