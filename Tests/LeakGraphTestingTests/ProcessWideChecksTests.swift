import LeakGraph
import LeakGraphTesting
import Testing

/// Plain classes, unknown to LeakGraph.
private final class PlainOwner {
    var part: PlainPart?
    var onEvent: (() -> Void)?
    var count = 0
}

private final class PlainPart {
    var owner: PlainOwner?
}

@inline(never)
private func makePlainCycle() {
    let owner = PlainOwner()
    let part = PlainPart()
    owner.part = part
    part.owner = owner
}

@inline(never)
private func makeClosureCycle(weakly: Bool) {
    let owner = PlainOwner()
    let name = "event"
    if weakly {
        owner.onEvent = { [weak owner] in owner?.count += name.count }
    } else {
        owner.onEvent = { owner.count += name.count }
    }
}

/// The checks with whole-process tracking (these run when the suite runs with
/// `LEAKGRAPH_TRACK=all`, as CI does; otherwise plain classes are invisible by design).
@Suite(
    "Checks with whole-process tracking",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct ProcessWideChecksTests {
    @Test("a leaked cycle of plain classes fails the check, naming the types and fields")
    func plainCycleFails() async throws {
        let (scope, _) = LeakScope.run { makePlainCycle() }
        let findings = try #require(await LeakCheck.check(scope: scope, name: "plainCycleFails"))
        #expect(findings.message.contains("leaked in cycles nothing else holds"), "\(findings.message)")
        #expect(findings.message.contains("PlainOwner") && findings.message.contains("PlainPart"))
        #expect(findings.message.contains("—part→") && findings.message.contains("—owner→"), "\(findings.message)")
    }

    @Test("a closure capturing its owner strongly fails; its [weak] twin passes")
    func closureCapture() async throws {
        let (strong, _) = LeakScope.run { makeClosureCycle(weakly: false) }
        let findings = try #require(await LeakCheck.check(scope: strong, name: "closureCapture"))
        #expect(findings.message.contains("PlainOwner"), "\(findings.message)")
        #expect(findings.message.contains("context of"), "\(findings.message)")
        let (weak, _) = LeakScope.run { makeClosureCycle(weakly: true) }
        let none = await LeakCheck.check(scope: weak, name: "closureCaptureWeak")
        #expect(none == nil, "\(none?.message ?? "")")
    }

    @Test("objects that are merely alive (a global, a cache) do not fail the check")
    func aliveIsNotBlamed() async {
        let (scope, _) = LeakScope.run { ProcessWideCache.shared.entries.append(PlainPart()) }
        let findings = await LeakCheck.check(scope: scope, name: "aliveIsNotBlamed")
        #expect(findings == nil, "\(findings?.message ?? "")")
    }
}

/// A cache the process keeps: what a test puts in it stays alive on purpose.
private final class ProcessWideCache: @unchecked Sendable {  // touched by one test only
    static let shared = ProcessWideCache()
    var entries: [PlainPart] = []
}
