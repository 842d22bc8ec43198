import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

@Suite("leakgraph report")
struct ReportCommandTests {
    let directory = makeTemporaryDirectory("report")

    @Test("a leaked pair reads like a leak trace: loop, allocation sites and a hint naming the back reference")
    func leakedPairReadsLikeALeakTrace() throws {
        let path = writeFile(Graphs.leakingPair.json(), "pair.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .leaksFound)
        let text = result.output
        #expect(text.contains("LEAKED: 1 cycle (1 signature), 2 objects"))
        #expect(text.contains("1 × Child —parent→ Parent —child→ Child"))
        #expect(text.contains("Parent \"example\" #1  allocated at makePair() at Sources/App/Pair.swift:21"))
        #expect(text.contains("Child #2"))
        #expect(text.contains("Fix: cut Child —parent→ Parent: make `parent` in Child weak"))
        #expect(text.contains("(pid 4242)"))
    }

    /// The user's `Child ⇄ Parent` leak beside two of XCTest's own test ⇄ run pairs.
    private var dumpWithXCTestPairs: String {
        var graph = Graphs.leakingPair
        for test in ["MapTests", "FilterTests"] {
            addXCTestPair(
                to: &graph, test: test, testSite: "XCTestCase.init() at XCTest/XCTestCase.swift:40",
                runSite: "XCTestCase.perform() at XCTest/XCTestCase.swift:90")
        }
        return graph.json()
    }

    /// XCTest's own `test —testRun→ XCTestCaseRun —test→ test` pair; `testRetainCount` 2 when
    /// something outside (the suite) still holds the test case.
    private func addXCTestPair(
        to graph: inout GraphBuilder, test: String, testRetainCount: Int = 1, testSite: String? = nil,
        runSite: String? = nil
    ) {
        let testCase = graph.object(test, rc: testRetainCount, site: testSite)
        let run = graph.object("XCTestCaseRun", site: runSite)
        graph.edge(testCase, run, "testRun")
        graph.edge(run, testCase, "test")
    }

    @Test("XCTest's own cycles are library leaks: shown apart and counted, the user's leak first, never a failure")
    func libraryLeaksApart() throws {
        let path = writeFile(dumpWithXCTestPairs, "xctest.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .leaksFound)
        let text = result.output
        #expect(text.contains("LEAKED: 1 cycle (1 signature), 2 objects"), "\(text)")
        #expect(text.contains("Library leaks (not in your code; never a failure): 2 in XCTest"))
        let user = try #require(text.range(of: "Child —parent→ Parent —child→ Child"))
        let library = try #require(text.range(of: "—testRun→ XCTestCaseRun —test→"))
        #expect(user.lowerBound < library.lowerBound)
        #expect(!text.contains("make `test` in XCTestCaseRun weak"))
        // Only XCTest's pairs: clean.
        var graph = GraphBuilder()
        addXCTestPair(to: &graph, test: "MapTests")
        let only = writeFile(graph.json(), "only-xctest.json", in: directory)
        let clean = try ReportCommand.run(path: only, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(clean.status == .clean)
        #expect(clean.output.contains("No leaks."))
        #expect(clean.output.contains("1 in XCTest"))
    }

    @Test("XCTest's test case and run still held at exit: a retained library cycle, its reason instead of a fix")
    func retainedLibraryCycleHasNoFix() throws {
        var graph = GraphBuilder()
        // The last test case: its suite still holds it (a reference the graph does not show).
        addXCTestPair(to: &graph, test: "TestClockTests", testRetainCount: 2)
        // A retained cycle of the user's keeps its fix.
        let parent = graph.object("Parent", rc: 2)
        let child = graph.object("Child")
        graph.edge(parent, child, "child")
        graph.edge(child, parent, "parent")
        let path = writeFile(graph.json(), "retained-xctest.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .clean)
        let text = result.output
        #expect(text.contains("Retained cycles (alive, held from outside): 2"), "\(text)")
        #expect(!text.contains("make `test` in XCTestCaseRun weak"), "\(text)")
        #expect(text.contains("XCTest: swift-corelibs-xctest keeps each test case and its run"), "\(text)")
        #expect(text.contains("(a library's cycle: nothing to fix in your code)"))
        #expect(text.contains("make `parent` in Child weak"), "\(text)")
        let json = try ReportCommand.run(
            path: path, format: .json, loader: DumpLoader(console: ConsoleCapture().console)
        ).output
        #expect(json.contains(#""library" : "XCTest: "#), "\(json)")
    }

    @Test("--ignore takes a loop with wildcards; --baseline a file `leakgraph baseline` wrote; both never fail")
    func ignoreAndBaseline() throws {
        let path = writeFile(Graphs.leakingPair.json(), "accept.json", in: directory)
        let ignored = try runBinary(["report", "--ignore", "Child -parent-> * -child-> Child", path])
        #expect(ignored.status == 0, "\(ignored.output)\(ignored.errors)")
        #expect(ignored.output.contains("1 in --ignore"))
        let baseline = directory + "/baseline.txt"
        let written = try runBinary(["baseline", path, "-o", baseline])
        #expect(written.status == 0, "\(written.errors)")
        #expect(written.output.contains("1 leaked-cycle signature(s)"))
        let file = try String(contentsOfFile: baseline, encoding: .utf8)
        #expect(file.contains("Child —parent→ Parent —child→ Child"))
        #expect(file.hasPrefix("# LeakGraph baseline"))
        let again = try runBinary(["baseline", path, "-o", baseline])
        #expect(again.status == 2)  // never replaced without --force
        let accepted = try runBinary(["report", "--baseline", baseline, path])
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(accepted.output.contains("1 in baseline"))
        let html = try runBinary(["html", "--baseline", baseline, path, "-o", directory + "/accepted.html"])
        #expect(html.status == 0)
        let bad = try runBinary(["report", "--ignore", "not a loop", path])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("is not a loop"))
        let missing = try runBinary(["report", "--baseline", directory + "/no-such-baseline.txt", path])
        expectOneLineFailure(missing, naming: directory + "/no-such-baseline.txt")
    }

    @Test("identical leaked cycles made at different lines list every place with its count")
    func groupedLeakListsItsSites() throws {
        var graph = GraphBuilder()
        for line in [60, 60, 44] {
            let function = line == 60 ? "makeSessions()" : "makeFirst()"
            let session = graph.object("Session", site: "\(function) at Sources/App/main.swift:\(line)")
            let token = graph.object("Token", site: "\(function) at Sources/App/main.swift:\(line + 1)")
            graph.edge(session, token, "token")
            graph.edge(token, session, "session")
        }
        let path = writeFile(graph.json(), "sites.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(text.contains("3 × "), "\(text)")
        #expect(
            text.contains("Made at: 2 × main.swift:6") && text.contains("1 × main.swift:4"), "\(text)")
        let json = try ReportCommand.run(
            path: path, format: .json, loader: DumpLoader(console: ConsoleCapture().console)
        ).output
        #expect(json.contains(#""sites""#))
        // One place: no "Made at" line.
        let single = writeFile(Graphs.leakingPair.json(), "single.json", in: directory)
        let plain = try ReportCommand.run(path: single, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(!plain.contains("Made at:"))
    }

    @Test("each leak names its culprit after its verdict: the member that alone keeps the most alive")
    func leakNamesItsCulprit() throws {
        let path = writeFile(Graphs.leakingPair.json(), "culprit.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(text.contains("      Culprit: Child #2 keeps 1 object(s) alive: Parent ×1\n"), "\(text)")
    }

    @Test("subscriptions that can never finish and those that never finished are listed apart")
    func lifecycleKindsListed() throws {
        // A bag (held from outside) —bag→ disposer —sink→ sink (active) ← subject (only the
        // disposer holds it); and a second sink whose subject something outside holds.
        var graph = GraphBuilder()
        let bag = graph.object("DisposeBag", rc: 2)
        let disposer = graph.object("SinkDisposer")
        let sink = graph.object("MapSink<Int>", rc: 2, site: "bind() at Sources/App/Screen.swift:9", state: .active)
        let subject = graph.object("PublishSubject<Int>")
        let heldSubject = graph.object("PublishSubject<String>", rc: 2)
        let liveSink = graph.object("MapSink<String>", site: "bind() at Sources/App/Screen.swift:12", state: .active)
        graph.edge(bag, disposer, "bag")
        graph.edge(disposer, sink, "sink")
        graph.edge(disposer, subject, "subscription")
        graph.edge(subject, sink, "observers")
        graph.edge(heldSubject, liveSink, "observers")
        var snapshot = graph.snapshot
        for index in snapshot.objects.indices { snapshot.objects[index].weakAndUnownedReferenceCount = 0 }
        let report = LeakDetector.analyze(snapshot, disposalLabels: ["bag", "sink", "subscription"])
        #expect(report.canNeverFinish == [sink])
        #expect(report.neverFinished == [liveSink])
        let path = writeFile(JSONExporter.render(snapshot, report: report), "lifecycle.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(
            text.contains(
                "Can never finish (active, but nothing outside can send them an event; they end only when disposed): 1\n"
                    + "  MapSink<Int> #3, allocated at bind() at Sources/App/Screen.swift:9\n"), "\(text)")
        #expect(
            text.contains(
                "Never finished (still active; something outside can still send them events): 1\n"
                    + "  MapSink<String> #6, allocated at bind() at Sources/App/Screen.swift:12\n"), "\(text)")
        let page = try String(
            contentsOfFile: HTMLCommand.write(
                dump: path, output: directory + "/lifecycle.html",
                loader: DumpLoader(console: ConsoleCapture().console),
                renderer: .missing), encoding: .utf8)
        #expect(page.contains("<h2>Can never finish</h2>"))
        #expect(page.contains("<code>MapSink&lt;Int&gt; #3</code>"))
    }

    @Test("a possible leak is said in the text and the page, and exits 4: not clean, not a certain leak")
    func possibleLeakExitsFour() throws {
        var graph = GraphBuilder()
        let model = graph.object("ViewModel", rc: 2, site: "bind() at Sources/App/Model.swift:3")
        let context = graph.object("closure context")
        graph.edge(model, context, "action")
        graph.edge(context, model, "capture")
        var snapshot = graph.snapshot
        snapshot.unreadReferences = [
            UnreadReferenceInfo(
                object: context, place: "capture", why: "a capture of a parameter pack (`repeat each T`), not read")
        ]
        let path = writeFile(JSONExporter.render(snapshot, processID: 7), "possible.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .possibleLeaks)
        #expect(result.status.rawValue == 4)
        #expect(result.output.contains("No certain leak, but 1 possible leak"), "\(result.output)")
        #expect(
            result.output.contains(
                "possible leak: ViewModel —action→ closure context —capture→ ViewModel is held only by 1 reference(s)"),
            "\(result.output)")
        let page = try String(
            contentsOfFile: HTMLCommand.write(
                dump: path, output: directory + "/possible.html", loader: DumpLoader(console: ConsoleCapture().console),
                renderer: .missing), encoding: .utf8)
        #expect(page.contains("<h2>Possible leaks</h2>"))
    }

    @Test("--owners lists the objects that alone keep others alive; the leaked pair's newest member keeps the other")
    func ownersListsDominators() throws {
        let path = writeFile(Graphs.leakingPair.json(), "owners.json", in: directory)
        let loader = DumpLoader(console: ConsoleCapture().console)
        let text = try ReportCommand.run(path: path, owners: true, loader: loader).output
        #expect(text.contains("Top owners (objects that alone keep others alive):"))
        #expect(text.contains("Child #2 keeps 1 object alive: Parent ×1 (leaked)"), "\(text)")
        let plain = try ReportCommand.run(path: path, loader: loader).output
        #expect(!plain.contains("Top owners"))
        let json = try ReportCommand.run(path: path, format: .json, owners: true, loader: loader).output
        #expect(json.contains("\"keepsAlive\" : 1"))
    }

    @Test("a capture edge gets the [weak self] hint, naming the closure")
    func captureEdgeGetsWeakSelfHint() throws {
        let path = writeFile(Graphs.closureLeak.json(), "closure.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(text.contains("FlatMap<Int> —capture→ ViewModel"))
        #expect(text.contains("Fix: cut FlatMap<Int> —capture→ ViewModel"))
        #expect(text.contains("closure #1 in ViewModel.bind()"))
        #expect(text.contains("[weak self]"))
    }

    @Test("a cycle a dependency declares says to end what the user's code made, at its line, not to cut the edge")
    func dependencyCycleEndsWhatUserMade() throws {
        var graph = GraphBuilder()
        let head = graph.object("ChannelHandlerContext", site: "makeChannel() at Sources/App/Server.swift:40")
        let tail = graph.object("ChannelHandlerContext", site: "makeChannel() at Sources/App/Server.swift:40")
        graph.edge(head, tail, "next")
        graph.edge(tail, head, "prev")
        var snapshot = graph.snapshot
        snapshot.fieldDeclarations = ["next", "prev"].map { field in
            FieldDeclaration(
                type: "ChannelHandlerContext", field: field, file: "swift-nio/Sources/NIOCore/ChannelPipeline.swift",
                line: 1862, text: "fileprivate var \(field): Optional<ChannelHandlerContext>", isInDependency: true)
        }
        let path = writeFile(JSONExporter.render(snapshot, processID: 4242), "dependency.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(text.contains("Fix: end ChannelHandlerContext: `"), "\(text)")
        #expect(text.contains("fix at Server.swift:40 (makeChannel())"), "\(text)")
        #expect(!text.contains("Fix: cut"), "\(text)")
    }

    @Test("Sink/SinkDisposer loops are grouped by signature and get the disposed(by:) hint")
    func sinkLoopsAreGroupedAndGetDisposeHint() throws {
        let path = writeFile(Graphs.mixed.json(), "mixed.json", in: directory)
        let text = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console)).output
        #expect(text.contains("LEAKED: 2 cycles (1 signature)"))
        #expect(text.contains("2 × Sink<Int> —disposer→ SinkDisposer —sink→ Sink<Int>"))
        #expect(text.contains("Fix: cut SinkDisposer —sink→ Sink<Int>"))
        #expect(text.contains("disposed(by:"))
        #expect(text.contains("Objects with unknown owners: 1"))
        #expect(
            text.contains("Cache #5: 3 unexplained reference(s), allocated at App.init() at Sources/App/App.swift:3"))
        #expect(text.contains("Finished but still alive: 1"))
        #expect(text.contains("(disposed)"))
    }

    @Test("a retained cycle names the member held from outside, and is not a leak")
    func retainedCycleNamesHolder() throws {
        let path = writeFile(Graphs.heldPair.json(), "held.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .clean)
        #expect(result.output.contains("No leaks."))
        #expect(result.output.contains("Retained cycles (alive, held from outside): 1"))
        #expect(
            result.output.contains("Parent \"example\" #1 is held from outside: 1 reference(s) the graph does not show")
        )
    }

    @Test("--format json decodes as a LeakSummary with top types and sites")
    func jsonFormatDecodes() async throws {
        let path = writeFile(Graphs.mixed.json(), "mixed.json", in: directory)
        let run = await runInProcess(["report", path, "--format", "json", "--top", "2"])
        #expect(run.status == 1)
        let summary = try JSONDecoder().decode(LeakSummary.self, from: Data(run.output.utf8))
        #expect(summary.objectCount == 6)
        #expect(summary.leakedCycles.map(\.count) == [2])
        #expect(summary.leakedCycles[0].cycles.count == 2)
        #expect(summary.leakedCycles[0].members.first?.stack?.isEmpty == false)
        #expect(summary.topTypes.count == 2)
        #expect(summary.topTypes.first?.name == "Sink<Int>")
        #expect(summary.topTypes.first?.count == 2)
        #expect(summary.topTypes.first?.leaked == 2)
        #expect(summary.topSites.first?.name == "Observable.subscribe at Sources/Rx/Observable.swift:5")
        #expect(summary.unknownOwners.map(\.id) == [5])
    }

    @Test(
        "top types and sites count every object whatever the order of types and the numbering of stacks",
        arguments: [1, 1_000_003])
    func tallyCountsMatchANaiveCount(stackIDStride: Int) throws {
        // Types interleaved in runs and alternations of three (the tallies compare the last two
        // types seen before hashing), stacks numbered densely or scattered (counted in an array
        // or hashed), some objects without a stack, some leaked.
        let types = ["A", "B", "A", "C", "B", "B", "A", "C", "C", "A", "B", "C", "A", "A", "B"]
        var objects: [ObjectInfo] = []
        var stacks: [StackInfo] = []
        var edges: [EdgeInfo] = []
        for line in 0..<4 {
            stacks.append(
                StackInfo(
                    id: line * stackIDStride, frames: ["f() at Sources/App/main.swift:\(line + 10)"], userFrame: 0))
        }
        var expectedTypes: [String: (count: Int, leaked: Int)] = [:]
        var expectedSites: [String: (count: Int, leaked: Int)] = [:]
        for round in 0..<3 {
            for (offset, type) in types.enumerated() {
                let id = UInt64(objects.count + 1)
                let line: Int? = offset % 5 == 4 ? nil : (offset + round) % 4
                let leaked = offset % 3 == 0
                objects.append(
                    ObjectInfo(id: id, type: type, strongRetainCount: 1, stack: line.map { $0 * stackIDStride }))
                if leaked { edges.append(EdgeInfo(from: id, to: id, kind: .strong, label: "me")) }
                let site = line.map { "f() at Sources/App/main.swift:\($0 + 10)" } ?? "(no allocation stack)"
                expectedTypes[type, default: (0, 0)].count += 1
                expectedTypes[type, default: (0, 0)].leaked += leaked ? 1 : 0
                expectedSites[site, default: (0, 0)].count += 1
                expectedSites[site, default: (0, 0)].leaked += leaked ? 1 : 0
            }
        }
        let snapshot = GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: 1_700_000_000)
        let path = writeFile(
            JSONExporter.render(snapshot, processID: 7), "tallies-\(stackIDStride).json", in: directory)
        let output = try ReportCommand.run(
            path: path, format: .json, top: 50, loader: DumpLoader(console: ConsoleCapture().console)
        ).output
        let summary = try JSONDecoder().decode(LeakSummary.self, from: Data(output.utf8))
        #expect(summary.leakedObjectCount > 0)
        #expect(summary.topTypes.count == expectedTypes.count)
        for tally in summary.topTypes {
            #expect(expectedTypes[tally.name]?.count == tally.count, "\(tally.name)")
            #expect(expectedTypes[tally.name]?.leaked == tally.leaked, "\(tally.name)")
        }
        #expect(summary.topSites.count == expectedSites.count)
        for tally in summary.topSites {
            #expect(expectedSites[tally.name]?.count == tally.count, "\(tally.name)")
            #expect(expectedSites[tally.name]?.leaked == tally.leaked, "\(tally.name)")
        }
    }

    @Test("exit status from the binary: 1 for leaks, 0 for a clean dump")
    func exitStatusFromBinary() throws {
        let leaking = writeFile(Graphs.leakingPair.json(), "leak.json", in: directory)
        let clean = writeFile(Graphs.cleanPair.json(), "clean.json", in: directory)
        let leakRun = try runBinary(["report", leaking])
        #expect(leakRun.status == 1)
        #expect(leakRun.errors.isEmpty)
        #expect(leakRun.output.contains("Child —parent→ Parent —child→ Child"))
        let cleanRun = try runBinary(["report", clean])
        #expect(cleanRun.status == 0)
        #expect(cleanRun.output.contains("No leaks."))
    }

    @Test("a dump without cycles written is analysed on load")
    func dumpWithoutCyclesIsAnalysed() throws {
        var json = Graphs.leakingPair.json()
        let range = try #require(json.range(of: ",\n\"cycles\":["))
        let end = try #require(json.range(of: "],\n\"unknownOwners\"", range: range.upperBound..<json.endIndex))
        json.replaceSubrange(range.lowerBound..<end.upperBound, with: ",\n\"unknownOwners\"")
        let path = writeFile(json, "nocycles.json", in: directory)
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        #expect(result.status == .leaksFound)
        #expect(result.output.contains("Child —parent→ Parent —child→ Child"))
    }
}
