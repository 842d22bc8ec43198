import Foundation
import LeakGraph

/// Writes the tool's output files: never over an existing file unless `--force`.
enum OutputFile {
    /// `input` with its extension replaced by `newExtension`: `dump.json` → `dump.svg`.
    static func defaultPath(for input: String, extension newExtension: String) -> String {
        let url = URL(fileURLWithPath: input)
        let stem = url.pathExtension.isEmpty ? input : String(input.dropLast(url.pathExtension.count + 1))
        return stem + "." + newExtension
    }

    /// Fails early when `path` exists and `force` is off.
    static func checkFree(_ path: String, force: Bool) throws(ToolError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ToolError(path: path, problem: "is a directory") }
        if !force { throw ToolError(path: path, problem: "exists (not overwritten; pass --force to replace it)") }
    }

    /// Writes `text` to `path`.
    static func write(_ text: String, to path: String, force: Bool) throws(ToolError) {
        try checkFree(path, force: force)
        do {
            try SafeFileWriter.write(text, to: path, replace: force)
        } catch {
            throw ToolError(
                path: path,
                problem: error.reason == "file exists (not overwritten)" && !force
                    ? "exists (not overwritten; pass --force to replace it)" : "cannot be written (\(error.reason))")
        }
    }

    /// A fresh path in `path`'s directory for writing before moving into place.
    static func temporarySibling(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        return directory + "/.\(url.lastPathComponent).\(getpid()).\(UUID().uuidString.prefix(8)).tmp"
    }

    /// Moves `temporary` to `path`: atomically, and without replacing an existing file unless
    /// `force` (a hard link fails when the name is taken).
    static func place(_ temporary: String, at path: String, force: Bool) throws(ToolError) {
        defer { unlink(temporary) }
        if force {
            guard rename(temporary, path) == 0 else {
                throw ToolError(path: path, problem: "cannot be written (\(String(cString: strerror(errno))))")
            }
            return
        }
        if link(temporary, path) == 0 { return }
        let linkError = errno
        if linkError == EEXIST {
            throw ToolError(path: path, problem: "exists (not overwritten; pass --force to replace it)")
        }
        // File systems without hard links: check, then rename (a small race remains).
        try checkFree(path, force: false)
        guard rename(temporary, path) == 0 else {
            throw ToolError(path: path, problem: "cannot be written (\(String(cString: strerror(errno))))")
        }
    }
}
