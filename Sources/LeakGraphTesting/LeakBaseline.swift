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
        signatures = try BaselineFile.signatures(at: path)
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
