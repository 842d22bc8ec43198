extension LeakGraph {
    /// Adds a leak in code you cannot change to the catalog of known library leaks: a leaked
    /// cycle that matches it is reported apart ("Library leaks: … not in your code"), marked in
    /// dumps (`"libraryLeak"`), and never fails a check.
    ///
    /// Libraries register their own leaks once, at startup; users add those of libraries that do
    /// not. LeakGraph's own catalog already holds XCTest's test ⇄ run pairs.
    ///
    /// ```swift
    /// LeakGraph.registerKnownLeak(
    ///     KnownLeak(library: "LegacyKit", pattern: "Session —delegate→ * —session→ Session",
    ///               reason: "LegacyKit's session and its delegate hold each other until logout"))
    /// ```
    ///
    /// - Returns: false, with a line on stderr, when the pattern is not a loop
    ///   (`Type —label→ Type …`, `*` for any text).
    @discardableResult
    public static func registerKnownLeak(_ leak: KnownLeak) -> Bool {
        guard LoopPattern(leak.pattern) != nil else {
            warn(
                "registerKnownLeak: \"\(leak.pattern)\" is not a loop (write it as reports do: "
                    + "`Type —label→ Type —label→ Type`, `*` for any text); not registered")
            return false
        }
        KnownLeaks.register(leak)
        return true
    }
}
