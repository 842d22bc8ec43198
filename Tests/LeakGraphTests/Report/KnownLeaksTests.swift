import Testing

@testable import LeakGraph

@Suite("Known library leaks")
struct KnownLeaksTests {
    /// A user's leak (`Child ⇄ Parent`), XCTest's pair for one test (the test case holds a
    /// fixture only the pair keeps alive), and a suite's pair.
    private var graph: GraphSnapshot {
        GraphBuilder()
            .object(1, "Parent").object(2, "Child")
            .edge(1, 2, "child").edge(2, 1, "parent")
            .object(10, "MapTests").object(11, "XCTestCaseRun").object(12, "Fixture")
            .edge(10, 11, "testRun").edge(11, 10, "test").edge(10, 12, "fixture")
            .object(20, "XCTestSuite").object(21, "XCTestSuiteRun")
            .edge(20, 21, "testRun").edge(21, 20, "test")
            .build()
    }

    @Test("XCTest's test ⇄ run pairs are marked as library leaks; the user's cycle is not")
    func xctestPairsAreLibraryLeaks() throws {
        let report = LeakDetector.analyze(graph)
        let user = try #require(report.cycles.first { $0.objects.contains(1) })
        let test = try #require(report.cycles.first { $0.objects.contains(10) })
        let suite = try #require(report.cycles.first { $0.objects.contains(20) })
        #expect(user.libraryLeak == nil)
        #expect(test.libraryLeak?.hasPrefix("XCTest: ") == true)
        #expect(suite.libraryLeak?.hasPrefix("XCTest: ") == true)
    }

    @Test(
        "classifying cycles none of which is a library's writes nothing: cycles shared with another value are not copied"
    )
    func classifyingUserLeaksCopiesNothing() throws {
        let snapshot = GraphBuilder()
            .object(1, "Parent").object(2, "Child").edge(1, 2, "child").edge(2, 1, "parent")
            .object(3, "Parent").object(4, "Child").edge(3, 4, "child").edge(4, 3, "parent")
            .build()
        let analysed = LeakDetector.analyze(snapshot)
        #expect(analysed.cycles.count == 2)
        var report = analysed
        #expect(
            analysed.cycles.withUnsafeBufferPointer { $0.baseAddress }
                == report.cycles.withUnsafeBufferPointer { $0.baseAddress })
        KnownLeaks.classify(&report, in: snapshot)
        // Still the storage `analysed` holds: a write, even of the same nil, would have copied it.
        let before = analysed.cycles.withUnsafeBufferPointer { $0.baseAddress }
        let after = report.cycles.withUnsafeBufferPointer { $0.baseAddress }
        #expect(before == after)
        #expect(report.cycles.allSatisfy { $0.libraryLeak == nil })
        // A library's cycle is still marked (and then the cycles are copied).
        var library = LeakDetector.analyze(graph)
        library.cycles = library.cycles.map { cycle in
            var unmarked = cycle
            unmarked.libraryLeak = nil
            return unmarked
        }
        KnownLeaks.classify(&library, in: graph, keepingMarks: true)
        #expect(library.cycles.filter { $0.libraryLeak != nil }.count == 2)
    }

    @Test("what only a library leak keeps alive is the library's; the user's leaks are counted without it")
    func libraryOnlyObjects() {
        let snapshot = graph
        let report = LeakDetector.analyze(snapshot)
        #expect(KnownLeaks.libraryOnlyObjects(of: report, in: snapshot) == [10, 11, 12, 20, 21])
        let user = KnownLeaks.userLeaks(of: report, in: snapshot)
        #expect(user.objects == [1, 2])
        #expect(user.cycles.count == 1)
        #expect(KnownLeaks.countsByLibrary(report.cycles).map(\.library) == ["XCTest"])
        #expect(KnownLeaks.countsByLibrary(report.cycles).map(\.count) == [2])
    }

    @Test("an object a user's leak also reaches stays the user's")
    func sharedObjectIsTheUsers() {
        let snapshot = GraphBuilder()
            .object(1, "Parent").object(2, "Child").edge(1, 2, "child").edge(2, 1, "parent")
            .object(10, "MapTests").object(11, "XCTestCaseRun").edge(10, 11, "testRun").edge(11, 10, "test")
            .object(30, "Shared", external: 0).edge(10, 30, "shared").edge(1, 30, "shared")
            .build()
        let report = LeakDetector.analyze(snapshot)
        #expect(KnownLeaks.userLeaks(of: report, in: snapshot).objects == [1, 2, 30])
    }

    @Test("loop patterns: any rotation, `*` for any text, ASCII arrows, and the closing type optional")
    func patterns() throws {
        let pattern = try #require(LoopPattern("* —testRun→ XCTestCaseRun —test→ *"))
        #expect(pattern.matches([("MapTests", "testRun"), ("XCTestCaseRun", "test")]))
        #expect(pattern.matches([("XCTestCaseRun", "test"), ("MapTests", "testRun")]))
        #expect(!pattern.matches([("MapTests", "testRun"), ("XCTestSuiteRun", "test")]))
        #expect(!pattern.matches([("A", "testRun"), ("XCTestCaseRun", "test"), ("B", "x")]))
        let ascii = try #require(LoopPattern("Cache -owner-> Owner<*> -cache-> Cache"))
        #expect(ascii.matches([("Owner<Int>", "cache"), ("Cache", "owner")]))
        #expect(LoopPattern("Cache —owner→ Owner —cache→") != nil)
        #expect(LoopPattern("Cache") == nil)
        #expect(LoopPattern("—owner→ Owner") == nil)
        #expect(LoopPattern("A —x→ B —y→ C") == nil)  // does not close
        #expect(Glob.matches("Sink<*>", "Sink<Int>"))
        #expect(Glob.matches("*", ""))
        #expect(!Glob.matches("Sink<*>", "SinkDisposer"))
    }

    @Test("a registered known leak marks matching cycles; a pattern that is not a loop is refused")
    func registration() throws {
        #expect(!LeakGraph.registerKnownLeak(KnownLeak(library: "Broken", pattern: "no arrows", reason: "")))
        #expect(
            LeakGraph.registerKnownLeak(
                KnownLeak(
                    library: "LegacyKit", pattern: "KnownLeaksTestSession —delegate→ * —session→ KnownLeaksTestSession",
                    reason: "the session and its delegate hold each other")))
        let snapshot = GraphBuilder()
            .object(1, "KnownLeaksTestSession").object(2, "Delegate")
            .edge(1, 2, "delegate").edge(2, 1, "session")
            .build()
        let cycle = try #require(LeakDetector.analyze(snapshot).cycles.first)
        #expect(cycle.libraryLeak == "LegacyKit: the session and its delegate hold each other")
    }
}
