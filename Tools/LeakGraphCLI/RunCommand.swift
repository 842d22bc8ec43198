import ArgumentParser
import Foundation
import LeakGraph

/// `leakgraph run -- <command …>`: runs a program with dump-at-exit on and reports what it left.
///
/// The program records every Swift object (`LEAKGRAPH_TRACK=all`, unless `--tracked-only` or the
/// environment already sets `LEAKGRAPH_TRACK`): a program of plain classes is checked, never
/// called clean because it made no `TrackedObject`. It gets `LEAKGRAPH_DUMP_DIR` (a new temporary
/// directory unless `--dump-dir`), its
/// output passes through, and when it exits the tool reads `leakgraph-<pid>.json` (the
/// program's process id) and prints the report. Exit status 1 when it leaked, 0 when not, 2
/// when it could not be started or wrote no readable dump.
package struct RunCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program recording every Swift object and report the dump it writes at exit.",
        discussion: """
            Example: leakgraph run -- .build/debug/my-tool --flag
            The program runs with LEAKGRAPH_TRACK=all (every Swift object recorded; --tracked-only \
            records only TrackedObject subclasses and LeakGraph.track, and a LEAKGRAPH_TRACK already \
            in the environment is kept) and LEAKGRAPH_DUMP_DIR set.
            Exit status: 0 no leaks, 1 leaks found, 2 bad usage, the program could not be started, \
            or it wrote no readable dump (is LeakGraph linked in, and did it exit normally?), \
            3 nothing checked (tracking was off), 4 no certain leak but a possible one.
            """
    )

    /// Where the program writes its dump.
    @Option(help: "Directory for the dump (default: a new temporary directory, kept afterwards).")
    package var dumpDir: String?

    /// Text or JSON.
    @Option(help: "Report format: text or json.")
    package var format: OutputFormat = .text

    /// How many entries per list.
    // Unconditional: `-1` is read as the value and refused by validate(), not taken for an option.
    @Option(parsing: .unconditional, help: "How many types, sites and entries per list to show.")
    package var top: Int = 10

    /// Record only tracked objects, not every Swift object.
    @Flag(help: "Record only TrackedObject subclasses and LeakGraph.track (the default records every Swift object).")
    package var trackedOnly = false

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// The program and its arguments.
    @Argument(
        parsing: .remaining,
        help: "The program and its arguments (after --, so that its own options are never read as ours).")
    package var command: [String] = []

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    /// Validates the options.
    package func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1") }
        guard !program.isEmpty else {
            throw ValidationError("missing the program to run: leakgraph run -- <command …>")
        }
    }

    /// The command without a leading `--`.
    var program: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

    func perform(console: Console) async throws -> ExitStatus {
        let directory = try dumpDir ?? Self.makeTemporaryDirectory()
        let dumpPath: String
        do {
            dumpPath = try Self.runProgram(
                program, dumpDirectory: directory, trackEveryObject: !trackedOnly, console: console)
        } catch {
            // A temporary folder the program wrote nothing into is not left behind (rmdir only
            // removes it empty); a folder the user named is theirs.
            if dumpDir == nil { rmdir(directory) }
            throw error
        }
        let result = try ReportCommand.run(
            path: dumpPath, format: format, top: top, loader: options.loader(console: console))
        console.write(result.output)
        return result.status
    }

    /// Runs `arguments` with `LEAKGRAPH_DUMP_DIR=directory` (and `LEAKGRAPH_TRACK=all` when
    /// `trackEveryObject` and the environment does not set it), its standard streams passed
    /// through, and returns the path of the dump it wrote.
    ///
    /// - Throws: ``ToolError`` when it cannot be started or wrote no dump.
    static func runProgram(
        _ arguments: [String], dumpDirectory: String, trackEveryObject: Bool = true, console: Console
    ) throws(ToolError) -> String {
        guard let name = arguments.first else { throw ToolError(path: nil, problem: "missing the program to run") }
        do {
            try SafeFileWriter.createDirectory(dumpDirectory)
        } catch {
            throw ToolError(path: error.path, problem: error.reason)
        }
        let directory = URL(fileURLWithPath: dumpDirectory).standardizedFileURL.path
        guard let executable = findExecutable(name) else { throw ToolError(path: name, problem: "command not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_DUMP_DIR"] = directory
        if trackEveryObject && environment["LEAKGRAPH_TRACK"] == nil { environment["LEAKGRAPH_TRACK"] = "all" }
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw ToolError(path: name, problem: "cannot be run (\(error.localizedDescription))")
        }
        let pid = process.processIdentifier
        process.waitUntilExit()
        let dump = directory + "/leakgraph-\(pid).json"
        guard FileManager.default.fileExists(atPath: dump) else {
            let how =
                process.terminationReason == .uncaughtSignal
                ? "was killed by signal \(process.terminationStatus)"
                : "exited with status \(process.terminationStatus)"
            throw ToolError(
                path: name,
                problem: "\(how) and wrote no dump (\(dump)); is LeakGraph linked into it, and did it exit normally?")
        }
        if process.terminationReason == .uncaughtSignal || process.terminationStatus != 0 {
            console.warn("leakgraph: note: \(name) exited with status \(process.terminationStatus)")
        }
        return dump
    }

    /// `name` if it contains a slash, else the first executable of that name on `PATH`.
    static func findExecutable(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }

    /// A new directory under the temporary directory.
    static func makeTemporaryDirectory() throws(ToolError) -> String {
        var template = Array((NSTemporaryDirectory() + "/leakgraph-run-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) != nil }
        guard made else {
            throw ToolError(
                path: NSTemporaryDirectory(),
                problem: "cannot create a temporary directory (\(String(cString: strerror(errno))))")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
