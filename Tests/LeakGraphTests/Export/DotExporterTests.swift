import Foundation
import Testing

@testable import LeakGraph

@Suite("DotExporter")
struct DotExporterTests {
    private let snapshot = GraphBuilder()
        .object(1, "Parent").object(2, "Child").object(3, "Held \"quoted\"", external: 1).object(
            4, "Watcher", external: 1
        )
        .edge(1, 2, "child").edge(2, 1, "parent")
        .edge(3, 4, "watcher").edge(4, 3, "back", kind: .weak).edge(4, 1, "observes", kind: .unowned)
        .build()

    @Test("leaked cycles are red, the edge to cut blue and marked; weak edges dashed, unowned dotted; quotes escaped")
    func styles() {
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        #expect(dot.hasPrefix("digraph leakgraph {"))
        #expect(dot.contains(##"n1 [label="Parent\n#1  rc=1", fillcolor="#ffd6d6", color="#d62728""##))
        #expect(dot.contains(##"n1 -> n2 [label="child", color="#d62728", penwidth=2];"##))
        #expect(dot.contains(##"n2 -> n1 [label="✂ parent", color="#1f5fbf""##))
        #expect(dot.contains(##"✂ cut Child —parent→ Parent"##), "the caption names the edge to cut")
        #expect(dot.contains(##"n4 -> n3 [label="back", style=dashed];"##))
        #expect(dot.contains(##"n4 -> n1 [label="observes", style=dotted];"##))
        #expect(dot.contains(##"Held \"quoted\""##))
        #expect(dot.contains("1 leaked, 0 retained cycle(s)"))
        #expect(dot.contains("rankdir=TB"))
        #expect(dot.contains("legend [shape=plaintext"))
    }

    @Test("a task is drawn as a hexagon, an unmanaged edge bold and dashed")
    func tasksAndUnmanagedEdges() {
        let graph = GraphBuilder().object(1, "Listener").object(2, TaskNode.typeName).object(3, "Storage")
            .edge(1, 2, "task").edge(2, 1, "frames", kind: .unmanaged).edge(1, 3, "buffer", kind: .unmanaged).build()
        let dot = DotExporter.render(graph, options: .init(scope: .everything))
        let taskLine = dot.split(separator: "\n").first { $0.hasPrefix("  n2 [") }
        #expect(taskLine?.contains("shape=hexagon") == true, "\(taskLine ?? "")")
        #expect(dot.split(separator: "\n").first { $0.hasPrefix("  n1 [") }?.contains("hexagon") == false)
        #expect(dot.contains(##"n1 -> n3 [label="buffer", style="bold,dashed"];"##), "\(dot)")
    }

    @Test(
        "the legend cannot run together in another renderer's font: two entries a row, a wide gap, samples as borders")
    func legendLeavesRoomBetweenEntries() throws {
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        let line = try #require(dot.split(separator: "\n").first { $0.contains("legend [shape=plaintext") })
        let rows = line.components(separatedBy: "<tr>").dropFirst()
        #expect(rows.count >= 5)
        for row in rows {
            // Two entries (sample + text each) and the gap between them.
            #expect(row.components(separatedBy: "<td").count - 1 == 5, "\(row)")
            #expect(row.contains("<td width=\"36\"></td>"), "\(row)")
        }
        // Box-drawing glyphs (━━) were missing from some renderers' fonts and drawn wider.
        #expect(!line.contains("━") && !line.contains("——") && !line.contains("·····"))
        #expect(dot.contains("pad=0.2"))
    }

    @Test("every strong edge inside a cycle is drawn in its colour, not only the canonical loop's")
    func secondLoopOfOneLeakIsColoured() {
        let snapshot = GraphBuilder()
            .object(1, "A").object(2, "B").object(3, "C")
            .edge(1, 2, "b").edge(2, 1, "a").edge(2, 3, "c").edge(3, 2, "back")
            .build()
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        let edgeLines = dot.split(separator: "\n").filter { $0.contains(" -> n") && !$0.contains("invis") }
        #expect(edgeLines.count == 4)
        for line in edgeLines {
            #expect(line.contains("#d62728") || line.contains("#1f5fbf"), "\(line)")
        }
    }

    @Test("long names are shortened in the middle with an ellipsis, the full text in the tooltip")
    func longNamesShortenedInTheMiddle() {
        let long = "AnonymousObservableSink<MapSink<Int, AnonymousObserver<Dictionary<String, Int>>>>"
        let snapshot = GraphBuilder().object(1, long).object(2, "B").edge(1, 2, "b").edge(2, 1, "a").build()
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        #expect(dot.contains("label=\"AnonymousObservableSi…ionary<String, Int>>>>\\n#1"))
        #expect(dot.contains("tooltip=\"\(long)\\n"))
        #expect(DotExporter.shorten("abcdefghij", to: 5) == "ab…ij")
        #expect(DotExporter.shorten("short", to: 44) == "short")
        #expect(
            DotExporter.siteLine(
                "closure #1 in variable initialization of Scenarios.all at Tools/Demo/Scenarios.swift:43", limit: 44)
                == "Scenarios.swift:43 · closure #1 …enarios.all")
    }

    @Test("control characters (a NUL ends a Graphviz string) are replaced, and strings past its limit are cut")
    func escapesWhatGraphvizCannotTake() {
        #expect(DotExporter.quote("a\u{0}b\u{7}c") == "\"a\u{FFFD}b\u{FFFD}c\"")
        let huge = DotExporter.quote(String(repeating: "x", count: 20_000))
        #expect(huge.count <= DotExporter.maximumStringLength + 3)
    }

    @Test("separate groups are stacked under each other, not side by side")
    func groupsStackVertically() {
        let snapshot = GraphBuilder()
            .object(1, "A").object(2, "B").object(3, "C").object(4, "D")
            .edge(1, 2, "b").edge(2, 1, "a").edge(3, 4, "d").edge(4, 3, "c")
            .build()
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        #expect(dot.contains("n2 -> divider1 [style=invis, weight=0];"))
        #expect(dot.contains("divider1 -> n3 [style=invis, weight=0];"))
        #expect(dot.contains("divider2 -> legend [style=invis, weight=0];"))
    }

    @Test("by default only cycles and one hop of context are drawn")
    func cyclesWithContext() {
        let dot = DotExporter.render(snapshot)
        #expect(dot.contains("n1 ") && dot.contains("n2 ") && dot.contains("n4 "))
        #expect(!dot.contains("n3 ["))
    }

    @Test("the node cap is respected and said in the title")
    func nodeCap() {
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything, maximumNodes: 2))
        #expect(dot.contains("2 more object(s) not drawn"))
        #expect(!dot.contains("n3 ["))
    }

    @Test("many copies of one leak are drawn as a few examples, the rest counted in the caption")
    func repeatedSignaturesDrawnAsExamples() {
        var builder = GraphBuilder()
        for pair in 0..<10 {
            let parent = UInt64(pair * 2 + 1)
            builder = builder.object(parent, "Parent").object(parent + 1, "Child")
                .edge(parent, parent + 1, "child").edge(parent + 1, parent, "parent")
        }
        // Another signature, once.
        builder = builder.object(100, "Owner").object(101, "Listener")
            .edge(100, 101, "listener").edge(101, 100, "owner")
        let graph = builder.build()
        let dot = DotExporter.render(graph)
        let nodes = dot.split(separator: "\n").filter {
            $0.hasPrefix("  n") && $0.contains(" [label=") && !$0.contains("->")
        }
        #expect(nodes.count == 3 * 2 + 2, "\(nodes)")
        #expect(dot.contains("10 leaked cycles like "), "\(dot)")
        #expect(dot.contains("(3 drawn)"))
        #expect(dot.contains("14 more object(s) not drawn"))
        #expect(!dot.contains("1 leaked cycles like Owner"), "a signature drawn whole is not captioned")
        let every = DotExporter.render(graph, options: .init(examplesPerSignature: 0))
        #expect(
            every.split(separator: "\n").filter { $0.hasPrefix("  n") && $0.contains(" [label=") && !$0.contains("->") }
                .count == 22)
        #expect(!every.contains("cycles like"))
    }

    @Test("the output is accepted by Graphviz", .enabled(if: Graphviz.dotExecutable != nil, "needs Graphviz"))
    func graphvizAccepts() throws {
        let directory = NSTemporaryDirectory() + "leakgraph-dot-test-\(getpid())"
        try SafeFileWriter.createDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SafeFileWriter.write(
            DotExporter.render(snapshot, options: .init(scope: .everything)), to: directory + "/g.dot", replace: true)
        try Graphviz.render(dotFile: directory + "/g.dot", to: directory + "/g.svg")
    }
}
