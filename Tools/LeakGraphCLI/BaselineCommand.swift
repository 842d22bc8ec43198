import ArgumentParser
import Foundation
import LeakGraph

/// `leakgraph baseline <dump.json> -o FILE`: writes the signatures of a dump's leaked cycles as a
/// baseline, for `--baseline FILE` (report, html, diff, run) and `ProcessLeakCheck`.
///
/// Library leaks are left out (they never fail a check anyway); so are cycles another
/// `--ignore` or `--baseline` already accepts. Never replaces an existing file unless `--force`.
package struct BaselineCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Write a baseline file accepting the leaked cycles of a dump.",
        discussion: """
            Example: leakgraph baseline leakgraph-1234.json -o Tests/leak-baseline.txt
            then: leakgraph report --baseline Tests/leak-baseline.txt new-dump.json
            The file lists one cycle signature per line, sorted, under a comment; review it before \
            committing it. Library leaks are not written (they never fail a check). The output is \
            never replaced unless --force.
            Exit status: 0 written, 2 bad usage or unreadable input, 3 nothing checked (the dump \
            checked nothing: a baseline from it would accept nothing and prove nothing).
            """
    )

    /// The dump.
    @Argument(help: "A LeakGraph JSON dump.")
    package var input: String

    /// Where to write.
    @Option(name: [.short, .customLong("output")], help: "The baseline file to write.")
    package var output: String

    /// Replace an existing output.
    @Flag(help: "Replace the output file if it exists.")
    package var force = false

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    func perform(console: Console) async throws -> ExitStatus {
        let loaded = try options.loader(console: console).load(input)
        if let reason = loaded.dump.summary?.notCheckedReason {
            console.warn("leakgraph: \(input): nothing was checked (\(reason)): no baseline written")
            return .notChecked
        }
        let signatures = Set(loaded.dump.cycles.filter { $0.leaked && $0.libraryLeak == nil }.map(\.signature))
        try OutputFile.write(
            BaselineFile.text(signatures: signatures, source: (input as NSString).lastPathComponent), to: output,
            force: force)
        console.write("wrote \(output): \(signatures.count) leaked-cycle signature(s)\n")
        return .clean
    }
}
