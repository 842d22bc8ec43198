import LeakGraph

/// A failure the tool reports as one line on stderr, `leakgraph: <path>: <problem>`, with exit
/// status 2 (bad usage or unreadable input).
///
/// ```swift
/// throw ToolError(path: "dump.json", problem: "is empty")
/// // stderr: leakgraph: dump.json: is empty
/// ```
package struct ToolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (or command) the problem is about, when there is one.
    package var path: String?
    /// What is wrong, without a trailing period.
    package var problem: String

    /// Creates an error about `path`.
    package init(path: String?, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// Wraps a dump reader's error.
    package init(_ error: DumpError) {
        self.init(path: error.path, problem: error.problem)
    }

    /// `path: problem` on one line (line breaks inside either part become spaces).
    package var description: String {
        let text = path.map { "\($0): \(problem)" } ?? problem
        return ToolError.oneLine(text)
    }

    /// `text` with every line break and other control character replaced by a space.
    static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}

/// The tool's exit statuses, a public contract.
package enum ExitStatus: Int32, Sendable {
    /// Nothing leaked.
    case clean = 0
    /// Leaks were found (`report`, `run`), or new leaks appeared (`diff`).
    case leaksFound = 1
    /// Bad usage or unreadable input; one line on stderr says which file and what is wrong.
    case badInput = 2
    /// Nothing was checked: tracking was off in the process that wrote the dump
    /// (`LEAKGRAPH=off`, the `LeakGraphDisabled` trait: never on in that process), so an
    /// empty dump is no evidence of no leaks (`report`, `run`, and `diff` for the later dump).
    case notChecked = 3
    /// No certain leak, but a possible one (`report`, `run`): a retained cycle held only by
    /// references the graph does not show that reaches memory LeakGraph could not read (see
    /// `PossibleLeak`). Not "clean": the check could not decide.
    case possibleLeaks = 4
}
