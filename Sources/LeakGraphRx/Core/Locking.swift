import LeakGraph
import Synchronization

extension Mutex where Value: Sendable {
    /// `withLock` for bodies that return values that are not `Sendable`: the lock already
    /// serialises every access to the state, so handing the result out is safe.
    @inline(__always)
    func locked<Result>(_ body: (inout Value) -> Result) -> Result {
        withLock { value in UncheckedSendable(body(&value)) }.value
    }
}

extension Locked {
    /// `withLock` under the name the operators use.
    @inline(__always)
    func locked<Result>(_ body: (inout State) -> Result) -> Result {
        withLock(body)
    }
}
