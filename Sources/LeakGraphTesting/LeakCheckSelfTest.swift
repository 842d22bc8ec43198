import LeakGraph

/// A negative control for leak checks: plants a leak the configured check must catch, so that a
/// CI whose checks have silently stopped working (tracking switched off, a grace period that
/// hides everything, a type filter too wide) goes red instead of green.
///
/// ```swift
/// @Test func leakChecksWork() async {
///     #expect(await LeakCheckSelfTest.catchesPlantedLeak(), "leak checks in this run would miss a real leak")
/// }
/// ```
///
/// The planted objects are freed again afterwards, whatever the result.
public enum LeakCheckSelfTest {
    /// Whether a check with `options` fails for a planted two-object cycle.
    /// False at once when tracking is off, without running a check: a check would use up the
    /// once-per-process notice that tracking is off, which the run's real checks must show.
    public static func catchesPlantedLeak(options: LeakCheckOptions = LeakCheckOptions()) async -> Bool {
        guard LeakGraph.isEnabled else { return false }
        // Unretained: a strong handle would make the cycle "held from outside", not leaked. The
        // cycle itself keeps the objects alive until `breakCycle`.
        let (scope, planted) = LeakScope.run { Unmanaged.passUnretained(PlantedNode.plantCycle()) }
        let outcome = await LeakCheck.run(scope: scope, name: "LeakCheckSelfTest", options: quick(options))
        planted.takeUnretainedValue().breakCycle()
        return outcome.findings?.report.leakedObjectIDs.isEmpty == false
    }

    /// Synchronous form for XCTest.
    public static func catchesPlantedLeakSynchronously(options: LeakCheckOptions = LeakCheckOptions()) -> Bool {
        guard LeakGraph.isEnabled else { return false }  // see catchesPlantedLeak(options:)
        // Unretained: a strong handle would make the cycle "held from outside", not leaked. The
        // cycle itself keeps the objects alive until `breakCycle`.
        let (scope, planted) = LeakScope.run { Unmanaged.passUnretained(PlantedNode.plantCycle()) }
        let outcome = LeakCheck.runSynchronously(scope: scope, name: "LeakCheckSelfTest", options: quick(options))
        planted.takeUnretainedValue().breakCycle()
        return outcome.findings?.report.leakedObjectIDs.isEmpty == false
    }

    /// The planted objects die only when the cycle is broken, so waiting is pointless.
    private static func quick(_ options: LeakCheckOptions) -> LeakCheckOptions {
        var options = options
        options.gracePeriod = .zero
        options.writesArtifacts = false
        return options
    }
}

/// One half of the planted cycle; the self-test keeps an unretained handle to break it afterwards.
final class PlantedNode: TrackedObject {
    var partner: PlantedNode?

    /// Makes `a ⇄ b` and returns `a`; the caller must not keep it strongly.
    static func plantCycle() -> PlantedNode {
        let a = PlantedNode(label: "LeakCheckSelfTest")
        let b = PlantedNode(label: "LeakCheckSelfTest")
        a.partner = b
        b.partner = a
        return a
    }

    func breakCycle() {
        partner?.partner = nil
        partner = nil
    }
}
