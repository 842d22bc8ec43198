import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

@Suite("leakgraph render")
struct RenderCommandTests {
    let directory = makeTemporaryDirectory("render")
    let loader = DumpLoader(console: ConsoleCapture().console)

    @Test("a JSON dump renders to SVG next to it, showing the leaked cycle")
    func jsonRendersToSVG() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let path = writeFile(Graphs.mixed.json(), "mixed.json", in: directory)
        let written = try RenderCommand.render(input: path, loader: loader, renderer: .graphviz)
        #expect(written == directory + "/mixed.svg")
        let svg = try String(contentsOfFile: written, encoding: .utf8)
        #expect(svg.contains("<svg"))
        #expect(svg.contains("SinkDisposer"))
        #expect(svg.contains("#d62728"))  // leaked members are red
    }

    @Test("a dot file renders to PNG and PDF; the binary prints the path and exits 0")
    func dotRendersToOtherFormats() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let dot = writeFile(DotExporter.render(Graphs.leakingPair.snapshot), "pair.dot", in: directory)
        let png = try runBinary(["render", dot, "--format", "png"])
        #expect(png.status == 0)
        #expect(png.output == "wrote \(directory)/pair.png\n")
        let header = FileManager.default.contents(atPath: directory + "/pair.png")?.prefix(4)
        #expect(header == Data([0x89, 0x50, 0x4E, 0x47]))
        let pdf = try runBinary(["render", dot, "--format", "pdf", "-o", directory + "/picture.pdf"])
        #expect(pdf.status == 0)
        #expect(FileManager.default.contents(atPath: directory + "/picture.pdf")?.prefix(4) == Data("%PDF".utf8))
    }

    @Test("without --format the output's extension chooses the format; a contradicting --format is refused")
    func outputExtensionChoosesTheFormat() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let dot = writeFile(DotExporter.render(Graphs.leakingPair.snapshot), "named.dot", in: directory)
        let png = try runBinary(["render", dot, "-o", directory + "/named.png"])
        #expect(png.status == 0)
        #expect(
            FileManager.default.contents(atPath: directory + "/named.png")?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        let contradicted = try runBinary(["render", dot, "-o", directory + "/other.svg", "--format", "png"])
        #expect(contradicted.status == 2)
        #expect(contradicted.errorLines.count == 1)
        #expect(contradicted.errors.contains("--format png does not match the output's extension .svg"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/other.svg"))
        let unknown = try runBinary(["render", dot, "-o", directory + "/named.jpg"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("cannot tell the image format from .jpg"))
    }

    @Test("an existing output is never replaced without --force")
    func neverOverwritesWithoutForce() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let path = writeFile(Graphs.leakingPair.json(), "pair.json", in: directory)
        let existing = writeFile("keep me", "pair.svg", in: directory)
        let run = try runBinary(["render", path])
        expectOneLineFailure(run, naming: existing)
        #expect(run.errors.contains("exists (not overwritten; pass --force to replace it)"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let forced = try runBinary(["render", path, "--force"])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: existing, encoding: .utf8).contains("<svg"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".tmp") || $0.hasSuffix(".tmp.dot")
        }
        #expect(leftovers.isEmpty)
    }

    @Test("without Graphviz: one line with the install hint, exit 2")
    func missingGraphvizGivesInstallHint() async throws {
        let path = writeFile(Graphs.leakingPair.json(), "pair.json", in: directory)
        #expect(throws: ToolError(path: path, problem: "cannot render: \(Graphviz.installHint)")) {
            try RenderCommand.render(input: path, loader: loader, renderer: .missing)
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/pair.svg"))
    }

    @Test("--all draws every object; --max-nodes bounds the drawing")
    func allAndMaxNodes() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        var graph = Graphs.leakingPair
        let loner = graph.object("Loner", rc: 1)
        _ = loner
        let path = writeFile(graph.json(), "loner.json", in: directory)
        let some = try RenderCommand.render(
            input: path, output: directory + "/some.svg", loader: loader, renderer: .graphviz)
        #expect(try !String(contentsOfFile: some, encoding: .utf8).contains("Loner"))
        let all = try RenderCommand.render(
            input: path, output: directory + "/all.svg", all: true, loader: loader, renderer: .graphviz)
        #expect(try String(contentsOfFile: all, encoding: .utf8).contains("Loner"))
        let one = try RenderCommand.render(
            input: path, output: directory + "/one.svg", all: true, maxNodes: 1, loader: loader, renderer: .graphviz)
        #expect(try String(contentsOfFile: one, encoding: .utf8).contains("2 more object(s) not drawn"))
    }
}
