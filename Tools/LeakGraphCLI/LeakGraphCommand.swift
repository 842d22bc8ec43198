import ArgumentParser
import Foundation
import LeakGraph
import LeakGraphCombine
import LeakGraphDump
import LeakGraphRx

/// The `leakgraph` command-line tool.
///
/// Exit statuses (a public contract, see ``ExitStatus``): 0 no leaks, 1 leaks found, 2 bad usage
/// or unreadable input, with one line on stderr naming the file and the problem, 3 nothing
/// checked (tracking was off in the process that wrote the dump):
/// ```
/// $ leakgraph report missing.json
/// leakgraph: missing.json: no such file
/// $ echo $?
/// 2
/// ```
package struct LeakGraphCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    package static let configuration = CommandConfiguration(
        commandName: "leakgraph",
        abstract: "Report, render, compare and explore LeakGraph dumps.",
        discussion: """
            Exit status: 0 no leaks, 1 leaks found (report, run; diff when new leaks appear), \
            2 bad usage or unreadable input, 3 nothing checked (report, run, diff: tracking was off \
            in the process that wrote the dump). render and html exit 0 whatever the dump holds.
            """,
        subcommands: [
            ReportCommand.self, RenderCommand.self, DiffCommand.self, HTMLCommand.self, RunCommand.self,
            BaselineCommand.self,
        ]
    )

    /// Creates the root command (ArgumentParser calls this).
    package init() {}

    /// Without a subcommand: bad usage.
    package func run() async throws {
        throw ToolError(
            path: nil, problem: "missing command (report, render, diff, html, run or baseline); see 'leakgraph --help'")
    }

    /// Parses the process's arguments, runs the command and exits with its status (0, 1 or 2;
    /// unlike ArgumentParser's `main()`, usage errors exit with 2 and print one line).
    package static func runMain() async -> Never {
        let status = await execute(Array(CommandLine.arguments.dropFirst()), console: .standard)
        terminateProcess(status)
    }

    /// Registers every library's fix advice the tool knows. The dumps come from other
    /// processes, which may have used any of the libraries (a process registers only those of
    /// the libraries it used, so a user type named like a library's may be advised on
    /// differently here). Idempotent; called by every entry point that gives advice.
    package static func registerLibraryAdvice() {
        LeakAdvice.register(RxLeakAdvice.rules + CombineLeakAdvice.rules)
        LeakAdvice.registerLibraryClosureHolders(typePrefixes: RxLeakAdvice.closureHolderPrefixes)
    }

    /// Parses `arguments`, runs the command and returns the exit status; every failure is one
    /// line on the console's error stream. Used by ``runMain()`` and by tests in-process.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output, errors and progress go.
    /// - Returns: 0, 1 or 2 (see ``ExitStatus``); 0 for `--help`.
    package static func execute(_ arguments: [String], console: Console) async -> Int32 {
        registerLibraryAdvice()
        do {
            var command = try parseAsRoot(arguments)
            if let tool = command as? any ToolCommand {
                return try await tool.perform(console: console).rawValue
            }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return ExitStatus.clean.rawValue
        } catch {
            return report(error, console: console)
        }
    }

    /// Prints `error` as the tool does and returns its exit status.
    static func report(_ error: any Error, console: Console) -> Int32 {
        switch error {
        case let error as ToolError:
            console.warn("leakgraph: \(error)")
            return ExitStatus.badInput.rawValue
        case let error as DumpError:
            console.warn("leakgraph: \(ToolError(error))")
            return ExitStatus.badInput.rawValue
        case let error as ExitCode:
            return error.rawValue
        default:
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version: the full text on stdout.
                let text = fullMessage(for: error)
                console.write(text.hasSuffix("\n") ? text : text + "\n")
                return ExitStatus.clean.rawValue
            }
            let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            var line = message
            for prefix in ["Error: ", "error: "] where line.hasPrefix(prefix) { line.removeFirst(prefix.count) }
            console.warn("leakgraph: \(ToolError.oneLine(line)) (see 'leakgraph help')")
            return ExitStatus.badInput.rawValue
        }
    }
}

/// A subcommand that reports its outcome as an exit status instead of printing it itself.
protocol ToolCommand: AsyncParsableCommand {
    /// Runs the command, writing to `console`.
    ///
    /// - Returns: ``ExitStatus/clean`` or ``ExitStatus/leaksFound``.
    /// - Throws: ``ToolError`` for bad usage or unreadable input.
    func perform(console: Console) async throws -> ExitStatus
}

extension ToolCommand {
    /// Runs the command on the standard console (when ArgumentParser drives it directly).
    package func run() async throws {
        let status = try await perform(console: .standard)
        if status != .clean { throw ExitCode(status.rawValue) }
    }
}

/// Ends the process with `status` (a global function: inside the command type, `exit` names
/// ArgumentParser's `exit(withError:)`).
private func terminateProcess(_ status: Int32) -> Never {
    exit(status)
}
