import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

@Suite("leakgraph html")
struct HTMLCommandTests {
    let directory = makeTemporaryDirectory("html")
    let loader = DumpLoader(console: ConsoleCapture().console)

    @Test("one self-contained page: summary tables, inline SVG per leaked cycle, stacks in <details>")
    func selfContainedPage() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let path = writeFile(Graphs.mixed.json(), "mixed.json", in: directory)
        let written = try HTMLCommand.write(
            dump: path, output: directory + "/report.html", loader: loader, renderer: .graphviz)
        let page = try String(contentsOfFile: written, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h2>Summary</h2>"))
        #expect(page.contains("<h2>Top types</h2>"))
        #expect(page.contains("<h2>Top allocation sites</h2>"))
        #expect(page.components(separatedBy: "<svg").count - 1 == 1)  // one signature, one picture
        #expect(page.contains("<details><summary>"))
        #expect(page.contains("Feed.start() at Sources/App/Feed.swift:30"))
        // Each leak opens with its verdict and its culprit.
        #expect(page.contains("<p class=\"verdict-line\">"))
        #expect(page.contains("<p class=\"culprit\">Culprit: "))
        // Works offline: one inline script (pan and zoom), no external resources.
        #expect(page.components(separatedBy: "<script").count - 1 == 1)
        #expect(!page.contains("<script src"))
        #expect(!page.contains("<link"))
        #expect(!page.contains("src=\"http"))
        #expect(!page.contains("href=\"http"))
    }

    @Test("advice written with `code` spans shows them as code, not with backticks; an unpaired backtick stays")
    func inlineCodeRendersAsCode() {
        #expect(
            HTMLEscaping.escapeWithInlineCode("make `parent` in Child weak (`weak var`)")
                == "make <code>parent</code> in Child weak (<code>weak var</code>)")
        #expect(HTMLEscaping.escapeWithInlineCode("a `<b>` c `d") == "a <code>&lt;b&gt;</code> c `d")
        #expect(HTMLEscaping.escapeWithInlineCode("no code") == "no code")
    }

    @Test("type names and labels are escaped")
    func escapesText() throws {
        let path = writeFile(Graphs.mixed.json(), "mixed.json", in: directory)
        let written = try HTMLCommand.write(dump: path, loader: loader, renderer: .missing)
        #expect(written == directory + "/mixed.html")
        let page = try String(contentsOfFile: written, encoding: .utf8)
        #expect(page.contains("Box&lt;Dictionary&lt;String, Int&gt;&gt; &amp; &quot;Ref&quot; &quot;&lt;b&gt;&quot;"))
        #expect(!page.contains("<b>"))
        #expect(!page.contains("Box<Dictionary"))
    }

    @Test("without Graphviz the page shows each cycle's dot text with a note")
    func withoutGraphvizShowsDotText() throws {
        let path = writeFile(Graphs.closureLeak.json(), "closure.json", in: directory)
        let written = try HTMLCommand.write(dump: path, loader: loader, renderer: .missing)
        let page = try String(contentsOfFile: written, encoding: .utf8)
        #expect(!page.contains("<svg"))
        #expect(page.contains("Graphviz is not installed"))
        #expect(page.contains("<pre class=\"dot\">digraph leakgraph {"))
        #expect(page.contains("[weak self]"))
    }

    @Test("never overwrites without --force")
    func neverOverwritesWithoutForce() throws {
        let path = writeFile(Graphs.leakingPair.json(), "pair.json", in: directory)
        let existing = writeFile("keep me", "pair.html", in: directory)
        let run = try runBinary(["html", path])
        expectOneLineFailure(run, naming: existing)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let forced = try runBinary(["html", path, "-o", existing, "--force"])
        #expect(forced.status == 0)
        #expect(forced.output == "wrote \(existing)\n")
        #expect(try String(contentsOfFile: existing, encoding: .utf8).contains("Leaks found"))
    }
}
