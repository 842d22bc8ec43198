import Foundation
import Synchronization

/// Where commands write: the process's standard output and error, or buffers in tests.
///
/// Thread-safe; output is written unbuffered so that it interleaves correctly with a child
/// process's output (`leakgraph run`).
package struct Console: Sendable {
    /// Writes text to standard output as is.
    package var write: @Sendable (String) -> Void
    /// Writes one line to standard error (a newline is added).
    package var warn: @Sendable (String) -> Void
    /// Whether progress lines are shown (standard error is a terminal).
    package var showsProgress: Bool

    /// Creates a console from its parts.
    package init(
        write: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void,
        showsProgress: Bool = false
    ) {
        self.write = write
        self.warn = warn
        self.showsProgress = showsProgress
    }

    /// The process's standard output and error; progress only when standard error is a terminal.
    package static var standard: Console {
        Console(
            write: { FileHandle.standardOutput.write(Data($0.utf8)) },
            warn: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
            showsProgress: isatty(2) == 1)
    }

    /// Shows a progress stage (`loading …`, `loaded …`) when standard error is a terminal.
    package func progress(_ stage: String) {
        if showsProgress { warn("leakgraph: \(stage)") }
    }
}

/// Collects what a command writes, for running commands in-process (tests).
package final class ConsoleCapture: Sendable {
    private let storage = Mutex<(output: String, errors: String)>(("", ""))

    /// Creates an empty capture.
    package init() {}

    /// A console writing into this capture, with progress off.
    package var console: Console {
        Console(
            write: { text in self.storage.withLock { $0.output += text } },
            warn: { line in self.storage.withLock { $0.errors += line + "\n" } })
    }

    /// Everything written to standard output.
    package var output: String { storage.withLock { $0.output } }
    /// Everything written to standard error.
    package var errors: String { storage.withLock { $0.errors } }
}
