import Foundation
import LeakGraph
import Testing

@Suite("DotExporter")
struct DotExporterTests {
    private let snapshot = GraphBuilder()
        .object(1, "Parent").object(2, "Child").object(3, "Held \"quoted\"", external: 1).object(
            4, "Watcher", external: 1
        )
        .edge(1, 2, "child").edge(2, 1, "parent")
        .edge(3, 4, "watcher").edge(4, 3, "back", kind: .weak).edge(4, 1, "observes", kind: .unowned)
        .build()

    @Test("leaked cycles are red with bold loop edges; weak edges dashed, unowned dotted; quotes escaped")
    func styles() {
        let dot = DotExporter.render(snapshot, options: .init(scope: .everything))
        #expect(dot.hasPrefix("digraph leakgraph {"))
        #expect(dot.contains(##"n1 [label="Parent\n#1  rc=1", fillcolor="#ffd6d6", color="#d62728"];"##))
        #expect(dot.contains(##"n1 -> n2 [label="child", color="#d62728", penwidth=2];"##))
        #expect(dot.contains(##"n4 -> n3 [label="back", style=dashed];"##))
        #expect(dot.contains(##"n4 -> n1 [label="observes", style=dotted];"##))
        #expect(dot.contains(##"Held \"quoted\""##))
        #expect(dot.contains("1 leaked, 0 retained cycle(s)"))
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

    @Test("the output is accepted by Graphviz", .enabled(if: Graphviz.dotExecutable != nil))
    func graphvizAccepts() throws {
        let directory = "/tmp/leakgraph-dot-test-\(getpid())"
        try SafeFileWriter.createDirectory(directory)
        try SafeFileWriter.write(
            DotExporter.render(snapshot, options: .init(scope: .everything)), to: directory + "/g.dot", replace: true)
        try Graphviz.render(dotFile: directory + "/g.dot", to: directory + "/g.svg")
    }
}
