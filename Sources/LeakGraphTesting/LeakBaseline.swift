import Foundation
import LeakGraph

/// Known leaks, by cycle signature, that a process-wide check accepts: a text file reviewed in
/// the repository, one signature per line (`#` starts a comment).
///
/// ```
/// # RxSwift's MainScheduler keeps one subscription for the process lifetime
/// PublishSubject<Int> —observers→ AnonymousObserver<Int> —capture→ PublishSubject<Int>
/// ```
public struct LeakBaseline: Sendable, Hashable {
    /// Accepted signatures.
    public var signatures: Set<String>

    /// A baseline from signatures.
    public init(signatures: Set<String> = []) {
        self.signatures = signatures
    }

    /// Reads a baseline file.
    ///
    /// - Throws: ``DumpError`` naming the file when it cannot be read.
    public init(contentsOf path: String) throws(DumpError) {
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
        signatures = Set(
            text.split(separator: "\n").map { Self.normalized($0.trimmingCharacters(in: .whitespaces)) }.filter {
                !$0.isEmpty && !$0.hasPrefix("#")
            })
    }

    /// An entry as signatures are written: `Child —parent→ Parent`. Entries typed with ASCII
    /// arrows (`Child -parent-> Parent`, `A -captured self-> B`) mean the same and are read as
    /// such, instead of never matching and only showing up as stale. A function type's arrow in
    /// a type name (`Observer<(Int) -> ()>`) is left alone: an edge's arrow starts with ` -`
    /// followed by its label, never by `>` or a space.
    static func normalized(_ entry: String) -> String {
        guard entry.contains("->") else { return entry }
        return entry.replacingOccurrences(
            of: #" -([^ >][^>]*?)-> "#, with: " —$1→ ", options: .regularExpression)
    }

    /// Splits `cycles` into new leaks and accepted ones, and lists baseline entries that no
    /// longer occur (stale: remove them from the file).
    public func compare(_ cycles: [Cycle]) -> (new: [Cycle], accepted: [Cycle], stale: [String]) {
        let leaked = cycles.filter(\.leaked)
        let new = leaked.filter { !signatures.contains($0.signature) }
        let accepted = leaked.filter { signatures.contains($0.signature) }
        let seen = Set(leaked.map(\.signature))
        return (new, accepted, signatures.subtracting(seen).sorted())
    }
}
