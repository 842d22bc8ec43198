import Foundation
import LeakGraph
import Testing

/// Builds small graphs by hand: `GraphBuilder().object(1, "A", external: 0).edge(1, 2, "next")`.
/// Retain counts are derived like the runtime would: strong in-edges plus external holders.
struct GraphBuilder {
    private var objects: [UInt64: (type: String, external: Int)] = [:]
    private var edges: [EdgeInfo] = []

    func object(_ id: UInt64, _ type: String, external: Int = 0) -> GraphBuilder {
        var copy = self
        copy.objects[id] = (type, external)
        return copy
    }

    func edge(_ from: UInt64, _ to: UInt64, _ label: String, kind: EdgeKind = .strong, count: Int = 1) -> GraphBuilder {
        var copy = self
        copy.edges.append(EdgeInfo(from: from, to: to, kind: kind, label: label, count: count))
        return copy
    }

    func build() -> GraphSnapshot {
        var strongIn: [UInt64: Int] = [:]
        for edge in edges where edge.kind == .strong { strongIn[edge.to, default: 0] += edge.count }
        let infos = objects.map { id, value in
            ObjectInfo(id: id, type: value.type, strongRetainCount: (strongIn[id] ?? 0) + value.external)
        }
        return GraphSnapshot(objects: infos, edges: edges)
    }
}

/// Runs `body` in its own stack frame so that no local outlives it.
@inline(never)
func inScope(_ body: () -> Void) { body() }

/// Runs each test in its own leak scope, so that a test looks only at objects it allocated while
/// other suites (and other test targets) allocate in parallel.
struct IsolatedTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else { return try await function() }
        _ = try await LeakScope.run { try await function() }
    }
}

extension Trait where Self == IsolatedTrait {
    static var isolated: Self { Self() }
}

extension Array where Element == ObjectInfo {
    /// The objects the current test allocated.
    /// (Objects whole-process tracking recorded are left out: these tests are about tracked
    /// ones, and the suite also runs with `LEAKGRAPH_TRACK=all`.)
    var mine: [ObjectInfo] {
        filter { $0.scope != 0 && $0.scope == LeakScope.currentID && !$0.isRecordedProcessWide }
    }
}

extension GraphSnapshot {
    /// The objects the current test allocated.
    var mine: [ObjectInfo] { objects.mine }
    var myIDs: Set<UInt64> { Set(mine.map(\.id)) }
    /// Cycles made only of the current test's objects.
    func myCycles(_ report: LeakReport) -> [Cycle] {
        let ids = myIDs
        return report.cycles.filter { $0.objects.allSatisfy(ids.contains) }
    }
}

/// Waits until `condition` holds (up to `seconds`): a snapshot running on another thread holds
/// every object for a moment, which can delay a deallocation.
func eventually(within seconds: Double = 2, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        usleep(1_000)
    }
    return true
}

/// Leaks a `Parent` ⇄ `Child` pair declared with the property wrappers; returns the parent.
@inline(never)
@discardableResult
func makeLeakedPair() -> Parent {
    let parent = Parent()
    let child = Child()
    parent.child = child
    child.parent = parent
    return parent
}
