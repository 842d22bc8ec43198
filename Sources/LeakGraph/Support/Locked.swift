#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State guarded by a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` because on Linux `Mutex` locks with raw futex calls
/// that the thread sanitizer cannot see, so every access it guards is reported as a race; a
/// pthread mutex is intercepted and costs the same uncontended (about 20 ns). Keeping the
/// project clean under `--sanitize=thread` is worth more than the type's `~Copyable` niceties.
///
/// As everywhere in LeakGraph: never release an object or a closure inside `withLock`; return
/// it and let it go after unlocking.
package final class Locked<State> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer rather than a stored `var`: an inout access to a class's stored property
    // pays a dynamic exclusivity check (~100 instructions with its thread-local lookup), and the
    // mutex already guarantees exclusivity.
    private let state: UnsafeMutablePointer<State>

    package init(_ state: State) {
        self.state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        self.state.initialize(to: state)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}

/// Sendable only when its state is: the lock serialises access to the state, but handing a
/// non-`Sendable` value to another thread through it would still share that value unchecked.
/// (@unchecked because the stored pointers are not `Sendable`; the mutex makes them safe.)
extension Locked: @unchecked Sendable where State: Sendable {}
