import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Strong references LeakGraph itself takes for a moment on objects registered with
/// ``LeakGraph/track(_:label:)``, and the rule that keeps them out of the retain counts
/// snapshots read.
///
/// The registry knows such objects only through weak references, and loading a weak reference
/// yields a strong one: the object's retain count is one higher until that temporary is
/// released. Released under the registry lock, the temporary could run the object's `deinit`
/// there (when the program dropped its last reference meanwhile), so it is released after
/// unlocking — and a snapshot counting in between would see one holder too many and call a
/// leaked cycle "held from outside by 1 reference".
///
/// So whoever takes such temporaries announces them under the registry lock (``begin()``) and
/// withdraws the announcement once all are released (``end()``), and a snapshot reads retain
/// counts only in a critical section that finds none announced (``isSettled``), waiting outside
/// the lock otherwise (``waitUntilSettled()``). The wait is bounded: past it a count may be one
/// too high, a safe "retained", never a false "leaked".
enum ExternalLoads {
    /// Announcements not yet withdrawn (on any thread).
    private static let outstanding = Atomic<Int>(0)

    /// Announces temporaries about to be taken. Call under the registry lock.
    static func begin() {
        outstanding.add(1, ordering: .sequentiallyConsistent)
    }

    /// Withdraws an announcement once its temporaries are released.
    static func end() {
        outstanding.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Whether no other temporaries exist now. Read under the registry lock: then none can be
    /// taken until it is released. True on a thread that is itself releasing (a `deinit` run by
    /// one of its releases), which cannot wait for itself.
    static var isSettled: Bool {
        lg_get_releasing_snapshot() != 0 || outstanding.load(ordering: .sequentiallyConsistent) == 0
    }

    /// Whether no other temporaries exist, waiting up to about 2 ms for them to go. Called
    /// under the registry lock: a thread that has just left it usually still has its temporaries
    /// for a few microseconds, and the waiting snapshot, which gets the lock next, would
    /// otherwise give up every time another thread snapshots in a loop. Bounded, because a
    /// release may run a `deinit` that needs the registry lock.
    static var isSettledSoon: Bool {
        if isSettled { return true }
        for _ in 0..<100 {
            usleep(20)
            if isSettled { return true }
        }
        return false
    }

    /// Waits (outside every lock) until no temporaries are announced.
    /// - Returns: False when it gave up (about 200 ms: temporaries live for microseconds, so
    ///   only a thread stopped in the middle of releasing them takes longer).
    @discardableResult
    static func waitUntilSettled() -> Bool {
        for _ in 0..<2_000 {
            if isSettled { return true }
            usleep(100)
        }
        return isSettled
    }

    /// Runs `body` under the registry lock once no other thread's temporaries exist, waiting
    /// outside the lock between tries (after about 50 tries it runs anyway: a count may then be
    /// one too high, a safe "retained"). `body` returns the temporaries it took: they are
    /// announced before the lock is left and released after.
    static func withSettledState(
        of registry: Registry, _ body: (inout RegistryState) -> [Unmanaged<AnyObject>]
    ) {
        var temporaries: [Unmanaged<AnyObject>]?
        var insist = true
        var attempts = 0
        while temporaries == nil {
            registry.withStateForSnapshot { state in
                guard !insist || isSettledSoon else { return }
                let taken = body(&state)
                if !taken.isEmpty { begin() }
                temporaries = taken
            }
            if temporaries == nil {
                attempts += 1
                insist = waitUntilSettled() && attempts < 50
            }
        }
        if let temporaries, !temporaries.isEmpty { release(temporaries) }
    }

    /// Releases `temporaries` and withdraws their announcement, marking this thread as
    /// releasing meanwhile (a `deinit` that takes a snapshot must not wait for this thread).
    static func release(_ temporaries: [Unmanaged<AnyObject>]) {
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() + 1)
        for temporary in temporaries { temporary.release() }
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() - 1)
        end()
    }
}
