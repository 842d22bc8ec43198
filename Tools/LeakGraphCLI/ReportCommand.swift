import ArgumentParser
import Foundation
import LeakGraph

/// `leakgraph report <dump.json>`: what leaked, what is held, and where it was allocated.
///
/// Exit status 1 when the dump has leaks, 0 when not, 2 when it cannot be read, 3 when tracking
/// was off in the process that wrote it (nothing was checked), 4 when it has no certain leak but
/// a possible one (a cycle only unread memory may hold).
package struct ReportCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report leaked and retained cycles, unknown owners, top types and allocation sites.",
        discussion: """
            Exit status: 0 no leaks, 1 leaks found, 2 bad usage or unreadable input, \
            3 nothing checked (tracking was off in the process that wrote the dump), \
            4 no certain leak but a possible one (a cycle held only by references LeakGraph could not read).
            """
    )

    /// The dump.
    @Argument(
        help: "A LeakGraph JSON dump (leakgraph-<pid>.json), or a folder: every dump in it (test workers' dumps).")
    package var dump: String

    /// Text or JSON.
    @Option(help: "Output format: text or json.")
    package var format: OutputFormat = .text

    /// How many entries per list.
    // Unconditional: `-1` is read as the value and refused by validate(), not taken for an option.
    @Option(parsing: .unconditional, help: "How many types, sites and entries per list to show.")
    package var top: Int = 10

    /// List the top owners.
    @Flag(help: "List the objects that alone keep the most others alive (the dominator tree of strong edges).")
    package var owners = false

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    /// Validates the options.
    package func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1") }
    }

    func perform(console: Console) async throws -> ExitStatus {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dump, isDirectory: &isDirectory), isDirectory.boolValue {
            return try reportFolder(console: console)
        }
        let result = try Self.run(
            path: dump, format: format, top: top, owners: owners, loader: options.loader(console: console))
        console.write(result.output)
        return result.status
    }

    /// Every dump in the folder `dump` (`leakgraph-*.json`, as processes and test workers name
    /// them; temporaries of writes under way are hidden and skipped), one report after another,
    /// then one line for all; the exit status is the worst of them.
    private func reportFolder(console: Console) throws(ToolError) -> ExitStatus {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: dump)
                .filter { $0.hasPrefix("leakgraph") && $0.hasSuffix(".json") }.sorted()
        } catch {
            throw ToolError(path: dump, problem: "cannot list the folder (\(error.localizedDescription))")
        }
        guard !names.isEmpty else {
            throw ToolError(path: dump, problem: "is a directory with no dump in it (leakgraph-*.json)")
        }
        let loader = options.loader(console: console)
        var statuses: [ExitStatus] = []
        var outputs: [String] = []
        for name in names {
            let path = (dump as NSString).appendingPathComponent(name)
            let result = try Self.run(path: path, format: format, top: top, owners: owners, loader: loader)
            statuses.append(result.status)
            outputs.append(result.output)
        }
        switch format {
        case .text:
            console.write(outputs.joined(separator: "\n"))
            let leaked = statuses.filter { $0 == .leaksFound }.count
            let unchecked = statuses.filter { $0 == .notChecked }.count
            let possible = statuses.filter { $0 == .possibleLeaks }.count
            console.write(
                "\n\(names.count) dump(s) in \(dump): \(leaked) with leaks, \(possible) with possible leaks, "
                    + "\(unchecked) that checked nothing, \(names.count - leaked - unchecked - possible) clean\n")
        case .json:
            console.write(
                "[" + outputs.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ",\n")
                    + "]\n")
        }
        for worst in [ExitStatus.leaksFound, .possibleLeaks, .notChecked] where statuses.contains(worst) {
            return worst
        }
        return .clean
    }

    /// Reads the dump at `path` and renders its report; the same code path as the command.
    ///
    /// - Returns: The report text and the exit status (``ExitStatus/leaksFound``,
    ///   ``ExitStatus/clean``, or ``ExitStatus/notChecked`` when tracking was off).
    /// - Throws: ``ToolError`` when the dump cannot be read.
    package static func run(
        path: String, format: OutputFormat = .text, top: Int = 10, owners: Bool = false,
        loader: DumpLoader = DumpLoader(console: .standard)
    ) throws(ToolError) -> (output: String, status: ExitStatus) {
        let loaded = try loader.load(path)
        var summary = ReportBuilder.summarize(loaded, top: top)
        if owners { summary.topOwners = Self.topOwners(loaded.dump.snapshot, loaded.dump.report, top: top) }
        let output: String
        switch format {
        case .text: output = ReportText.render(summary, limit: top)
        case .json: output = JSONOutput.encode(summary)
        }
        OffThreadRelease.release(consume loaded)
        return (output, summary.exitStatus)
    }
}

extension ReportCommand {
    /// The `top` objects that alone keep the most others alive.
    static func topOwners(_ snapshot: GraphSnapshot, _ report: LeakReport, top: Int) -> [LeakSummary.Owner] {
        let dominators = Dominators(snapshot, report: report)
        let ranked = snapshot.objects.map { ($0, dominators.keepsAlive(of: $0.id)) }.filter { $0.1 > 0 }
            .sorted { ($0.1, $0.0.id) > ($1.1, $1.0.id) }.prefix(top)
        return ranked.map { object, count in
            var byType: [String: Int] = [:]
            for id in dominators.keptAlive(by: object.id) {
                byType[snapshot.object(id)?.type ?? "?", default: 0] += 1
            }
            let types = byType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(5).map {
                "\($0.key) ×\($0.value)"
            }
            return LeakSummary.Owner(
                object: object.displayName, keepsAlive: count, types: Array(types),
                leaked: report.leakedObjectIDs.contains(object.id))
        }
    }
}

/// JSON output shared by the commands: pretty-printed, keys sorted, slashes unescaped.
enum JSONOutput {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
