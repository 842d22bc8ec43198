import ArgumentParser
import Foundation
import LeakGraph

/// `leakgraph html <dump.json> -o report.html`: one self-contained page that works offline.
package struct HTMLCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "html",
        abstract: "Write a self-contained HTML report: summary tables, each leaked cycle drawn, stacks on demand.",
        discussion: """
            Cycles are drawn with Graphviz when it is installed (otherwise the page shows their dot text). \
            The output is never replaced unless --force. Exit status: 0 written, 2 bad usage or unreadable input.
            """
    )

    /// The dump.
    @Argument(help: "A LeakGraph JSON dump.")
    package var dump: String

    /// Where to write.
    @Option(name: [.short, .customLong("output")], help: "Output path (default: the dump with .html).")
    package var output: String?

    /// Replace an existing output.
    @Flag(help: "Replace the output file if it exists.")
    package var force = false

    /// Rows per table and cycles drawn.
    // Unconditional: `-1` is read as the value and refused by validate(), not taken for an option.
    @Option(parsing: .unconditional, help: "How many rows per table, and how many leaked cycle signatures to draw.")
    package var top: Int = 20

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    /// Validates the options.
    package func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1") }
    }

    func perform(console: Console) async throws -> ExitStatus {
        let written = try Self.write(
            dump: dump, output: output, force: force, top: top, loader: options.loader(console: console),
            renderer: .graphviz)
        console.write("wrote \(written)\n")
        return .clean
    }

    /// Writes the page for `dump` and returns its path; the same code path as the command.
    ///
    /// - Throws: ``ToolError`` naming the file and the problem.
    package static func write(
        dump: String, output: String? = nil, force: Bool = false, top: Int = 20, loader: DumpLoader,
        renderer: GraphRenderer
    ) throws(ToolError) -> String {
        let destination = output ?? OutputFile.defaultPath(for: dump, extension: "html")
        try OutputFile.checkFree(destination, force: force)
        let loaded = try loader.load(dump)
        let summary = ReportBuilder.summarize(loaded, top: top)
        let page = HTMLReport(loaded: loaded, summary: summary, renderer: renderer, drawnGroups: top, rows: top)
            .render()
        try OutputFile.write(page, to: destination, force: force)
        return destination
    }
}
