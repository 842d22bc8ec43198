import Foundation
import LeakGraph
import LeakGraphDump

/// A dump read from disk, checked, and analysed.
package struct LoadedDump: Sendable {
    /// The file it came from, as given on the command line.
    package var path: String
    /// The dump as written: snapshot, cycles and leak verdicts.
    package var dump: LeakGraphDump
    /// The dump's analysis as a ``LeakReport`` (finished-but-held objects from the objects'
    /// states, which the format does not list).
    package var analysis: LeakReport
}

/// Reads dumps for the commands: refuses what is not a regular file or is over the size limit,
/// shows progress on a terminal, and checks what ``LeakGraphDump`` leaves unchecked.
///
/// Cost: for 1,000,000 objects and 2,000,000 edges about 1.4 s to parse (release build, 460 MB
/// peak); the graph is analysed only when the dump has no analysis of its own.
package struct DumpLoader: Sendable {
    /// Files larger than this are refused: the decoded graph takes about as much memory as the
    /// file, and a file this large is almost certainly not a dump.
    package var maximumSize: UInt64
    /// Where progress goes.
    package var console: Console
    /// Which leaked cycles are not the user's (library leaks, `--ignore`, `--baseline`).
    package var knownLeaks = KnownLeakFilter()

    /// The default size limit: 1 GiB.
    package static let defaultMaximumSize: UInt64 = 1 << 30

    /// Creates a loader.
    package init(maximumSize: UInt64 = DumpLoader.defaultMaximumSize, console: Console = .standard) {
        self.maximumSize = maximumSize
        self.console = console
    }

    /// Reads, validates and analyses the dump at `path`.
    ///
    /// - Throws: ``ToolError`` naming the file and the problem.
    package func load(_ path: String) throws(ToolError) -> LoadedDump {
        let size = try InputFile.checkRegularFile(path, maximumSize: maximumSize)
        console.progress("loading \(path) (\(ByteCount.describe(size)))…")
        let start = Date()
        var dump: LeakGraphDump
        do {
            let console = console
            var shown = 0
            dump = try LeakGraphDump(contentsOf: path) { fraction in
                // At most ten progress lines.
                let tenth = Int(fraction * 10)
                if tenth > shown {
                    shown = tenth
                    console.progress("loading \(path): \(tenth * 10)%")
                }
            }
        } catch {
            throw ToolError(error)
        }
        try Self.validate(&dump, path: path)
        console.progress(
            "loaded \(dump.snapshot.objects.count) objects and \(dump.snapshot.edges.count) edges "
                + "in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        // The analysis the dump was written with (confirmed by the writing process), or the one
        // the reader made when the file has none: the graph is analysed once, never again here.
        var analysis = dump.report
        try knownLeaks.apply(to: &dump, analysis: &analysis)
        return LoadedDump(path: path, dump: dump, analysis: analysis)
    }

    /// Checks the values ``LeakGraphDump`` accepts but the analysis and exporters cannot use.
    static func validate(_ dump: inout LeakGraphDump, path: String) throws(ToolError) {
        // By position, one field at a time: iterating the records copied each whole (retaining
        // its strings), a tenth of a second for 400,000 objects.
        let objects = dump.snapshot.objects
        for index in objects.indices {
            if let count = objects[index].strongRetainCount, count < 0 || count > Int(Int32.max) {
                throw ToolError(
                    path: path,
                    problem: "object \(objects[index].id) has strongRetainCount \(count), outside 0…\(Int32.max)")
            }
        }
        for stack in dump.snapshot.stacks {
            if let frame = stack.userFrame, frame < 0 || frame >= max(1, stack.frames.count) {
                throw ToolError(
                    path: path,
                    problem: "stack \(stack.id) has userFrame \(frame), outside its \(stack.frames.count) frame(s)")
            }
        }
    }
}

/// Checks on input files before they are read.
enum InputFile {
    /// Returns the size of the regular file at `path`, or throws a one-line reason.
    static func checkRegularFile(_ path: String, maximumSize: UInt64) throws(ToolError) -> UInt64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw ToolError(path: path, problem: reason)
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw ToolError(path: path, problem: "is a directory, not a dump file") }
        guard type == S_IFREG else { throw ToolError(path: path, problem: "is not a regular file") }
        guard access(path, R_OK) == 0 else {
            throw ToolError(path: path, problem: "cannot be read (\(String(cString: strerror(errno))))")
        }
        let size = UInt64(max(0, info.st_size))
        guard size > 0 else { throw ToolError(path: path, problem: "is empty") }
        guard size <= maximumSize else {
            throw ToolError(
                path: path,
                problem: "is \(size) bytes, over the \(ByteCount.describe(maximumSize)) limit "
                    + "(raise it with --max-size)")
        }
        return size
    }
}
