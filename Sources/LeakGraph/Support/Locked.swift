import CLeakGraphSupport

/// State guarded by an `lg_mutex` (CLeakGraphSupport's mutex.c).
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls in the uninstrumented
/// standard library, so the thread sanitizer reports every access it guards as a race. Not a
/// pthread mutex either, any more: its lock and unlock cost ~55 instructions together, and the
/// registry locks about fifty times per subscription lifecycle. `lg_mutex` is a futex word locked
/// and unlocked with one atomic instruction each, in instrumented C, so the sanitizer sees the
/// ordering.
///
/// As everywhere in LeakGraph: never release an object or a closure inside `withLock`; return
/// it and let it go after unlocking.
package final class Locked<State> {
    private let mutex: UnsafeMutablePointer<lg_mutex>
    // Behind a pointer rather than a stored `var`: an inout access to a class's stored property
    // pays a dynamic exclusivity check (~100 instructions with its thread-local lookup), and the
    // mutex already guarantees exclusivity.
    private let state: UnsafeMutablePointer<State>

    package init(_ state: State) {
        self.state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        self.state.initialize(to: state)
        mutex = UnsafeMutablePointer<lg_mutex>.allocate(capacity: 1)
        mutex.initialize(to: lg_mutex())
        lg_mutex_init(mutex)
    }

    deinit {
        lg_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lg_mutex_lock(mutex)
        defer { lg_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}

/// Sendable only when its state is: the lock serialises access to the state, but handing a
/// non-`Sendable` value to another thread through it would still share that value unchecked.
/// (@unchecked because the stored pointers are not `Sendable`; the mutex makes them safe.)
extension Locked: @unchecked Sendable where State: Sendable {}
