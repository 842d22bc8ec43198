import Foundation
import Synchronization

/// Frees a big value on a thread of its own, so a command's answer does not wait for it.
///
/// A loaded dump of a million objects is millions of allocations: freeing them took about 5 % of
/// `leakgraph report` on a 440 MB dump, after the answer was known. The process usually exits
/// first, which frees everything at once.
enum OffThreadRelease {
    /// Takes `value` (the caller's last reference) and frees it on another thread.
    static func release<Value: Sendable>(_ value: consuming Value) {
        let box = Box<Value>(consume value)
        let thread = Thread { box.empty() }
        thread.name = "leakgraph-release"
        thread.start()
    }

    /// Holds the value until the other thread lets it go.
    private final class Box<Value: Sendable>: Sendable {
        private let value: Mutex<Value?>

        init(_ value: consuming Value) { self.value = Mutex(consume value) }

        /// Takes the value out under the lock and frees it after (its deinits run unlocked).
        func empty() { _ = value.withLock { $0.take() } }
    }
}
