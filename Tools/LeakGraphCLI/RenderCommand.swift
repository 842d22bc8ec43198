import ArgumentParser
import Foundation
import LeakGraph

/// `leakgraph render <dump.json | file.dot>`: draws the graph with Graphviz.
///
/// For a JSON dump, draws cycles and their neighbours (or everything with `--all`), at most
/// `--max-nodes` objects. Never replaces an existing output file unless `--force`.
package struct RenderCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a dump or a dot file as SVG, PNG or PDF with Graphviz.",
        discussion: """
            The output defaults to the input with the format's extension (dump.json → dump.svg) and \
            is never replaced unless --force. Without --format, the output's extension chooses the \
            format (-o leak.png writes PNG); a --format that contradicts it is refused. \
            Exit status: 0 written, 2 bad usage, unreadable input, or Graphviz missing or failing.
            """
    )

    /// Image formats Graphviz writes.
    package enum Format: String, ExpressibleByArgument, CaseIterable, Sendable {
        /// Scalable vector graphics.
        case svg
        /// Bitmap.
        case png
        /// Portable document.
        case pdf
    }

    /// The input.
    @Argument(help: "A LeakGraph JSON dump, or a dot file (.dot, .gv).")
    package var input: String

    /// The image format (nil: the output's extension, else SVG).
    @Option(help: "Output format: svg, png or pdf (default: the output's extension, else svg).")
    package var format: Format?

    /// Where to write.
    @Option(
        name: [.short, .customLong("output")], help: "Output path (default: the input with the format's extension).")
    package var output: String?

    /// Replace an existing output.
    @Flag(help: "Replace the output file if it exists.")
    package var force = false

    /// Draw everything.
    @Flag(help: "Draw every object, not only cycles and their neighbours (JSON input).")
    package var all = false

    /// The most objects drawn.
    // Unconditional: `-1` is read as the value and refused by validate(), not taken for an option.
    @Option(parsing: .unconditional, help: "The most objects drawn (JSON input); dot lays out about 1,000 in seconds.")
    package var maxNodes: Int = 500

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    /// Validates the options.
    package func validate() throws {
        guard maxNodes > 0 else { throw ValidationError("--max-nodes must be at least 1") }
        _ = try resolvedFormat()
    }

    /// The format to write: `--format`, else the output's extension, else SVG. An output named
    /// for another format is refused rather than written as what its name says it is not.
    package func resolvedFormat() throws(ValidationError) -> Format {
        let ext = output.map { URL(fileURLWithPath: $0).pathExtension.lowercased() } ?? ""
        let named = Format(rawValue: ext)
        switch (format, named) {
        case (let asked?, let named?) where asked != named:
            throw ValidationError(
                "--format \(asked.rawValue) does not match the output's extension .\(named.rawValue); "
                    + "name the file .\(asked.rawValue) or drop --format")
        case (let asked?, _): return asked
        case (nil, let named?): return named
        case (nil, nil):
            guard ext.isEmpty else {
                throw ValidationError("cannot tell the image format from .\(ext): use .svg, .png or .pdf, or --format")
            }
            return .svg
        }
    }

    func perform(console: Console) async throws -> ExitStatus {
        let written = try Self.render(
            input: input, format: resolvedFormat(), output: output, force: force, all: all, maxNodes: maxNodes,
            loader: options.loader(console: console), renderer: .graphviz)
        console.write("wrote \(written)\n")
        return .clean
    }

    /// Renders `input` and returns the path written; the same code path as the command.
    ///
    /// - Throws: ``ToolError`` naming the file and the problem.
    package static func render(
        input: String, format: Format = .svg, output: String? = nil, force: Bool = false, all: Bool = false,
        maxNodes: Int = 500, loader: DumpLoader, renderer: GraphRenderer
    ) throws(ToolError) -> String {
        let size = try InputFile.checkRegularFile(input, maximumSize: loader.maximumSize)
        let destination = output ?? OutputFile.defaultPath(for: input, extension: format.rawValue)
        try OutputFile.checkFree(destination, force: force)
        guard renderer.isAvailable else {
            throw ToolError(path: input, problem: "cannot render: \(GraphRenderer.installHint)")
        }
        if try isDotFile(input, size: size) {
            try renderer.render(dotFile: input, source: input, to: destination, format: format.rawValue, force: force)
            return destination
        }
        let loaded = try loader.load(input)
        let title = URL(fileURLWithPath: input).lastPathComponent
        let options = DotExporter.Options(
            scope: all ? .everything : .cyclesWithContext, maximumNodes: maxNodes, title: title)
        let dot = DotExporter.render(loaded.dump, options: options)
        let dotFile = OutputFile.temporarySibling(of: destination) + ".dot"
        do {
            try SafeFileWriter.write(dot, to: dotFile)
        } catch {
            throw ToolError(path: dotFile, problem: "cannot be written (\(error.reason))")
        }
        defer { unlink(dotFile) }
        try renderer.render(dotFile: dotFile, source: input, to: destination, format: format.rawValue, force: force)
        return destination
    }

    /// Whether `path` is a dot file: by extension, else by its first non-blank byte (`{` is JSON).
    static func isDotFile(_ path: String, size: UInt64) throws(ToolError) -> Bool {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "dot", "gv": return true
        case "json": return false
        default: break
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ToolError(path: path, problem: "cannot be read")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        let first = head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first != UInt8(ascii: "{")
    }
}
