import LeakGraph
import Testing

@Suite("Fix advice rules")
struct LeakAdviceTests {
    /// A bus holding its subscriber, which holds the bus back through `owner`.
    private let busLoop = GraphBuilder()
        .object(1, "MessageBus<Int>").object(2, "Listener")
        .edge(1, 2, "subscriber").edge(2, 1, "owner")
        .build()

    private func leakedCycle(_ snapshot: GraphSnapshot) throws -> Cycle {
        try #require(LeakDetector.analyze(snapshot).leakedCycles.first)
    }

    @Test("without a rule for the library's type, the back reference is cut")
    func genericAdvice() throws {
        let fix = try #require(LeakTrace.fix(for: try leakedCycle(busLoop), in: busLoop, rules: []))
        #expect(fix.edge == "Listener —owner→ MessageBus<Int>")
        #expect(fix.advice.contains("weak"))
    }

    @Test("a library's rule chooses its own edge and says how to break it, ahead of the generic rules")
    func ruleWins() throws {
        let rule = LeakAdviceRule(
            name: "tests.MessageBus", priority: 150, cut: .ownerTypeName("MessageBus"),
            advice: "the bus still holds its subscriber; call unsubscribe().")
        let fix = try #require(LeakTrace.fix(for: try leakedCycle(busLoop), in: busLoop, rules: [rule]))
        #expect(fix.edge == "MessageBus<Int> —subscriber→ Listener")
        #expect(fix.advice == rule.advice)
    }

    @Test("registered rules are tried in priority order; a rule that matches no step is skipped")
    func priorityOrder() throws {
        // Names no other test's graph has: the registered rules are process-wide.
        let loop = GraphBuilder()
            .object(1, "ZzAdviceBus").object(2, "ZzAdviceListener")
            .edge(1, 2, "zz-subscriber").edge(2, 1, "zz-back")
            .build()
        let byLabel = LeakAdviceRule(
            name: "tests.label", priority: 300, cut: .label(["zz-back"]), advice: "label")
        let byType = LeakAdviceRule(
            name: "tests.type", priority: 100, cut: .ownerTypeContains("ZzAdviceBus"), advice: "type")
        let unmatched = LeakAdviceRule(
            name: "tests.none", priority: 1, cut: .ownerTypeName("ZzNothing"), advice: "none")
        LeakAdvice.register([byLabel, byType, unmatched])
        let registered = LeakAdvice.registeredRules.filter {
            ["tests.none", "tests.type", "tests.label"].contains($0.name)
        }
        #expect(registered.map(\.name) == ["tests.none", "tests.type", "tests.label"])
        let fix = try #require(LeakTrace.fix(for: try leakedCycle(loop), in: loop))
        #expect(fix.edge == "ZzAdviceBus —zz-subscriber→ ZzAdviceListener")
        #expect(fix.advice == "type")
    }

    @Test("a loop of only a task and what it awaits says to finish or cancel, not to capture weakly")
    func taskOnlyLoop() throws {
        let loop = GraphBuilder()
            .object(1, "Task").object(2, "_Storage")
            .edge(1, 2, "frames", kind: .unmanaged).edge(2, 1, "state.continuations[0]")
            .build()
        let fix = try #require(LeakTrace.fix(for: try leakedCycle(loop), in: loop))
        #expect(fix.edge == "Task —frames→ _Storage")
        #expect(fix.advice.contains("can never finish") && fix.advice.contains("continuation.finish()"))
        #expect(!fix.advice.contains("weakly"), "\(fix.advice)")
    }

    @Test("a task loop through its owner's capture says to capture weakly and cancel the task")
    func taskLoopThroughCapture() throws {
        let loop = GraphBuilder()
            .object(1, "Listener").object(2, "Task").object(3, "context of closure #1 in Listener.start()")
            .edge(1, 2, "task._task").edge(2, 3, "frames", kind: .unmanaged).edge(3, 1, "capture")
            .build()
        let fix = try #require(LeakTrace.fix(for: try leakedCycle(loop), in: loop))
        #expect(
            fix.advice.contains("Capture Listener weakly") && fix.advice.contains("task?.cancel()"), "\(fix.advice)")
    }

    @Test("registering a rule under a name already registered replaces it")
    func replaceByName() {
        LeakAdvice.register([
            LeakAdviceRule(name: "tests.replace", priority: 5, cut: .label(["zz-never"]), advice: "old")
        ])
        LeakAdvice.register([
            LeakAdviceRule(name: "tests.replace", priority: 5, cut: .label(["zz-never"]), advice: "new")
        ])
        let matching = LeakAdvice.registeredRules.filter { $0.name == "tests.replace" }
        #expect(matching.map(\.advice) == ["new"])
    }
}
