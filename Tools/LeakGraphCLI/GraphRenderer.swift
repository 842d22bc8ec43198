import Foundation
import LeakGraph

/// Renders dot text through Graphviz (``Graphviz``), or reports that `dot` is missing.
///
/// Tests use ``missing`` to check what happens on machines without Graphviz.
package struct GraphRenderer: Sendable {
    /// Whether `dot` can be run.
    package var isAvailable: Bool

    /// Graphviz as installed on this machine.
    package static var graphviz: GraphRenderer { GraphRenderer(isAvailable: Graphviz.dotExecutable != nil) }

    /// A renderer that behaves as if Graphviz were not installed.
    package static let missing = GraphRenderer(isAvailable: false)

    /// The line printed when `dot` is missing.
    package static var installHint: String { Graphviz.installHint }

    /// Creates a renderer.
    package init(isAvailable: Bool) {
        self.isAvailable = isAvailable
    }

    /// Renders the dot file at `dotFile` into a new file at `output` (replacing it only when
    /// `force`); errors name `source` (the file the user gave).
    func render(dotFile: String, source: String, to output: String, format: String, force: Bool) throws(ToolError) {
        guard isAvailable else { throw ToolError(path: source, problem: "cannot render: \(Self.installHint)") }
        let temporary = OutputFile.temporarySibling(of: output)
        do {
            try Graphviz.render(dotFile: dotFile, to: temporary, format: format)
        } catch {
            unlink(temporary)
            var problem = error.description
            if problem.hasPrefix(dotFile + ": ") { problem.removeFirst(dotFile.count + 2) }
            throw ToolError(path: source, problem: problem)
        }
        try OutputFile.place(temporary, at: output, force: force)
    }

    /// Renders dot `text` to SVG and returns the SVG markup (without its XML prologue), for
    /// inlining into HTML.
    func svg(fromDot text: String, source: String) throws(ToolError) -> String {
        guard isAvailable else { throw ToolError(path: source, problem: "cannot render: \(Self.installHint)") }
        let directory = NSTemporaryDirectory() + "leakgraph-\(getpid())-\(UUID().uuidString.prefix(8))"
        do {
            try SafeFileWriter.createDirectory(directory)
        } catch {
            throw ToolError(path: directory, problem: error.reason)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dotFile = directory + "/cycle.dot"
        let svgFile = directory + "/cycle.svg"
        do {
            try SafeFileWriter.write(text, to: dotFile)
            try Graphviz.render(dotFile: dotFile, to: svgFile, format: "svg")
        } catch {
            throw ToolError(path: source, problem: "\(error)")
        }
        guard let data = FileManager.default.contents(atPath: svgFile) else {
            throw ToolError(path: source, problem: "dot wrote no SVG")
        }
        let svg = String(decoding: data, as: UTF8.self)
        guard let start = svg.range(of: "<svg") else { return svg }
        return String(svg[start.lowerBound...])
    }
}
