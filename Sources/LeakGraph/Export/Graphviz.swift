import Foundation

/// Renders dot files with Graphviz's `dot`, when it is installed.
package enum Graphviz {
    /// Why rendering failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// One-line description.
        package var description: String
    }

    /// The `dot` executable, if on the `PATH`.
    package static var dotExecutable: String? { ExternalSymbolizer.find("dot", includingDefaultFolders: false) }

    /// The hint printed when `dot` is missing.
    package static let installHint =
        "Graphviz is not installed: install it with `sudo apt-get install -y graphviz` (Debian/Ubuntu) or `brew install graphviz` (macOS)"

    /// Renders `dotFile` to `output` in `format` (`svg`, `png`, `pdf`).
    ///
    /// Layout time grows steeply with size: keep graphs under about 1,000 nodes. The child
    /// process is killed after `timeout` seconds.
    package static func render(dotFile: String, to output: String, format: String = "svg", timeout: TimeInterval = 120)
        throws(Failure)
    {
        guard ["svg", "png", "pdf"].contains(format) else {
            throw Failure(description: "unsupported format \"\(format)\" (use svg, png or pdf)")
        }
        guard let dot = dotExecutable else { throw Failure(description: installHint) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-T\(format)", dotFile, "-o", output]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw Failure(description: "cannot run \(dot): \(error.localizedDescription)")
        }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        guard process.terminationReason == .exit else {
            throw Failure(description: "\(dotFile): dot did not finish within \(Int(timeout)) s (graph too large?)")
        }
        guard process.terminationStatus == 0 else {
            let text =
                String(decoding: message, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "failed"
            throw Failure(description: "\(dotFile): dot failed: \(text)")
        }
    }
}
