import Foundation

/// The baseline file format shared by `ProcessLeakCheck` and `leakgraph report --baseline`: one
/// cycle signature per line, `#` starts a comment, blank lines are skipped.
///
/// ```
/// # RxSwift's MainScheduler keeps one subscription for the process lifetime
/// PublishSubject<Int> —observers→ AnonymousObserver<Int> —capture→ PublishSubject<Int>
/// ```
package enum BaselineFile {
    /// The signatures in the file at `path`.
    ///
    /// - Throws: ``DumpError`` naming the file when it cannot be read.
    package static func signatures(at path: String) throws(DumpError) -> Set<String> {
        var status = stat()
        guard stat(path, &status) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw DumpError(path: path, problem: "baseline cannot be read (\(String(cString: strerror(errno))))")
            }
            let relative =
                path.hasPrefix("/")
                ? "" : " (relative to the working directory, \(FileManager.default.currentDirectoryPath))"
            throw DumpError(path: path, problem: "no such baseline file\(relative)")
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw DumpError(path: path, problem: "is a directory, not a baseline file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DumpError(path: path, problem: "baseline cannot be read (permission?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DumpError(path: path, problem: "baseline is not UTF-8 text")
        }
        return Set(
            text.split(separator: "\n").map { normalized($0.trimmingCharacters(in: .whitespaces)) }.filter {
                !$0.isEmpty && !$0.hasPrefix("#")
            })
    }

    /// The text of a baseline accepting `signatures`, sorted, under a comment saying where they
    /// came from.
    package static func text(signatures: Set<String>, source: String) -> String {
        var text = "# LeakGraph baseline: leaked cycles accepted, one signature per line (`#` starts a comment).\n"
        text += "# Written from \(source). Review each entry; remove it once the leak is fixed.\n"
        for signature in signatures.sorted() { text += signature + "\n" }
        return text
    }

    /// An entry as signatures are written: `Child —parent→ Parent`. Entries typed with ASCII
    /// arrows (`Child -parent-> Parent`, `A -captured self-> B`) mean the same and are read as
    /// such, instead of never matching and only showing up as stale. A function type's arrow in
    /// a type name (`Observer<(Int) -> ()>`) is left alone: an edge's arrow starts with ` -`
    /// followed by its label, never by `>` or a space.
    package static func normalized(_ entry: String) -> String {
        guard entry.contains("->") else { return entry }
        return entry.replacingOccurrences(
            of: #" -([^ >][^>]*?)-> "#, with: " —$1→ ", options: .regularExpression)
    }
}
