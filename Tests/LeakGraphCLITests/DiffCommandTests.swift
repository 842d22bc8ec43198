import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

@Suite("leakgraph diff")
struct DiffCommandTests {
    let directory = makeTemporaryDirectory("diff")

    @Test("growth by type and site, sorted by delta; a new leak signature exits 1")
    func growthAndNewLeaks() async throws {
        let before = writeFile(Graphs.cleanPair.json(), "before.json", in: directory)
        var grown = Graphs.mixed
        for _ in 0..<4 { grown.object("Parent", rc: 2, site: "makePair() at Sources/App/Pair.swift:21") }
        let after = writeFile(grown.json(), "after.json", in: directory)
        let run = await runInProcess(["diff", before, after, "--format", "json"])
        #expect(run.status == 1)
        let diff = try JSONDecoder().decode(DumpDiff.self, from: Data(run.output.utf8))
        #expect(diff.types.first?.name == "Parent")
        #expect(diff.types.first?.delta == 3)
        #expect(diff.types.contains { $0.name == "Child" && $0.before == 1 && $0.after == 0 && $0.delta == -1 })
        #expect(diff.types.map(\.delta) == diff.types.map(\.delta).sorted(by: >))
        #expect(diff.sites.first?.name == "makePair() at Sources/App/Pair.swift:21")
        #expect(diff.newLeaks.map(\.name) == ["Sink<Int> —disposer→ SinkDisposer —sink→ Sink<Int>"])
        #expect(diff.newLeaks.first?.after == 2)
        #expect(diff.vanishedLeaks.isEmpty)
    }

    @Test("--dot and --html draw the later dump with new leaks highlighted; the page marks each leak")
    func picturesHighlightNewLeaks() async throws {
        // Before: the leaked pair and the closure leak. After: the pair still there, the closure
        // leak fixed, and a new Sink/SinkDisposer leak.
        var first = Graphs.leakingPair
        let model = first.object("ViewModel")
        let flatMap = first.object("FlatMap<Int>")
        first.edge(model, flatMap, "signal")
        first.edge(flatMap, model, "capture")
        var second = Graphs.leakingPair
        let sink = second.object("Sink<Int>")
        let disposer = second.object("SinkDisposer")
        second.edge(sink, disposer, "disposer")
        second.edge(disposer, sink, "sink")
        let before = writeFile(first.json(), "pictures-before.json", in: directory)
        let after = writeFile(second.json(), "pictures-after.json", in: directory)
        let dot = directory + "/diff.dot"
        let html = directory + "/diff.html"
        let run = await runInProcess(["diff", before, after, "--dot", dot, "--html", html])
        #expect(run.status == 1)
        #expect(run.output.contains("wrote \(dot)\n"))
        let graph = try String(contentsOfFile: dot, encoding: .utf8)
        let newNodes = graph.split(separator: "\n").filter { $0.contains("★ new") }
        #expect(newNodes.count == 2)
        #expect(newNodes.allSatisfy { $0.contains("peripheries=2") })
        #expect(newNodes.contains { $0.contains("n\(sink) [") } && newNodes.contains { $0.contains("n\(disposer) [") })
        #expect(graph.contains("new since the other dump"))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<span class=\"new\">★ new</span> 1 × <code>Sink&lt;Int&gt;"))
        #expect(page.contains("<span class=\"same\">still there</span> 1 × <code>Child —parent→ Parent"))
        #expect(page.contains("<span class=\"fixed\">✓ fixed</span> 1 × <code>FlatMap&lt;Int&gt; —capture→ ViewModel"))
        // Never replaced without --force.
        let again = await runInProcess(["diff", before, after, "--dot", dot])
        #expect(again.status == 2)
        #expect(again.errors.contains("exists (not overwritten; pass --force to replace it)"))
        #expect(await runInProcess(["diff", before, after, "--dot", dot, "--force"]).status == 1)
    }

    @Test("a fixed leak is listed as vanished and exits 0; the text names both files")
    func vanishedLeakExitsZero() throws {
        let before = writeFile(Graphs.leakingPair.json(), "before.json", in: directory)
        let after = writeFile(Graphs.heldPair.json(), "after.json", in: directory)
        let run = try runBinary(["diff", before, after])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("\(before) → \(after)\n"))
        #expect(run.output.contains("Vanished leaks (fixed): 1"))
        #expect(run.output.contains("Child —parent→ Parent —child→ Child"))
        #expect(run.output.contains("No new leaks: 1 leak signature(s) vanished."))
    }

    @Test("a leak in both dumps with the same count is listed as still there, and exits 0")
    func unchangedLeakIsStillThere() throws {
        let before = writeFile(Graphs.leakingPair.json(), "same-before.json", in: directory)
        let after = writeFile(Graphs.leakingPair.json(), "same-after.json", in: directory)
        let run = try runBinary(["diff", before, after])
        #expect(run.status == 0)
        #expect(run.output.contains("Leaks still there: 1"))
        #expect(run.output.contains("No new leaks."))
    }

    @Test("more cycles of a known signature count as new leaks")
    func moreOfAKnownLeakExitsOne() async {
        var one = GraphBuilder()
        var two = GraphBuilder()
        for (graph, count) in [(0, 1), (1, 2)] {
            for _ in 0..<count {
                if graph == 0 {
                    let a = one.object("A")
                    let b = one.object("B")
                    one.edge(a, b, "b")
                    one.edge(b, a, "a")
                } else {
                    let a = two.object("A")
                    let b = two.object("B")
                    two.edge(a, b, "b")
                    two.edge(b, a, "a")
                }
            }
        }
        let before = writeFile(one.json(), "one.json", in: directory)
        let after = writeFile(two.json(), "two.json", in: directory)
        let run = await runInProcess(["diff", before, after])
        #expect(run.status == 1)
        #expect(run.output.contains("Known leaks that grew: 1"))
        // The summary and the verdict say the same thing.
        #expect(run.output.contains("NEW LEAKS: 1 known leak(s) grew (+1 cycle(s))."))
        // Reversed, the same dumps read as shrinkage.
        let reversed = await runInProcess(["diff", after, before])
        #expect(reversed.status == 0)
        #expect(reversed.output.contains("Known leaks that shrank: 1"))
        #expect(reversed.output.contains("Shrinkage by type: 2"))
        #expect(!reversed.output.contains("Growth by"))
        #expect(reversed.output.contains("No new leaks: 1 known leak(s) shrank."))
    }
}
