import CLeakGraphSupport
import Foundation

/// A value computed on a thread of its own, waited for when asked.
///
/// ```swift
/// let picture = BackgroundResult { DotExporter.render(snapshot) }
/// writeTheJSON()
/// write(picture.value)
/// ```
///
/// Sendable: the result is kept behind a lock (the semaphore alone orders it, but the thread
/// sanitizer does not see semaphores on every platform).
package final class BackgroundResult<Value: Sendable>: Sendable {
    private let result = Locked<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    package init(_ work: @escaping @Sendable () -> Value) {
        // In a forked child a new Foundation thread can wait forever (see `lg_is_forked_child`):
        // the work is done here instead.
        if lg_is_forked_child() != 0 {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
            return
        }
        let thread = Thread { [self] in
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.name = "leakgraph-background"
        thread.start()
    }

    /// The value, once the thread has computed it.
    package var value: Value {
        done.wait()
        done.signal()  // later reads do not wait
        return result.withLock { $0! }
    }
}
