import CLeakGraphSupport

extension LeakGraph {
    /// Starts recording every Swift object the process allocates from now on: plain classes,
    /// generic classes, actors, the classes of every library, closure contexts and `var` boxes;
    /// no subclassing, no registration. Snapshots, checks and the dump at exit then see them all,
    /// with the references read from their fields.
    ///
    /// Objects allocated before the call are not seen (set `LEAKGRAPH_TRACK=all` in the
    /// environment to start before `main`). Linux only: it works when the executable links
    /// LeakGraph statically and exports its symbols, as SwiftPM's executables and test runners
    /// do; elsewhere it returns `false` and says why on standard error.
    ///
    /// ```swift
    /// LeakGraph.trackAllObjects()
    /// final class Parent { var child: Child? }
    /// final class Child { var parent: Parent? }
    /// ```
    ///
    /// - Returns: Whether every object is now being recorded.
    @discardableResult
    public static func trackAllObjects() -> Bool {
        ProcessTracking.start()
    }

    /// Whether every Swift object of the process is being recorded (``trackAllObjects()`` or
    /// `LEAKGRAPH_TRACK=all`).
    public static var isTrackingAllObjects: Bool { lg_process_tracking_active() != 0 }
}

/// The Swift side of whole-process tracking (the records themselves live in C, in
/// `process_tracking.c`, because the allocation hook must not allocate a Swift object).
package enum ProcessTracking {
    /// Whether recording is on.
    package static var isActive: Bool { lg_process_tracking_active() != 0 }

    static func start() -> Bool {
        #if LEAKGRAPH_DISABLED
            warn("whole-process tracking is compiled out (the LeakGraphDisabled trait)")
            return false
        #else
            guard LeakGraph.isEnabled else {
                warn("whole-process tracking not started: tracking is off (LEAKGRAPH=off)")
                return false
            }
            guard lg_process_tracking_start() != 0 else {
                #if os(Linux)
                    warn(
                        "whole-process tracking is not available in this process: the Swift runtime's allocation entry points are not LeakGraph's (is the runtime linked statically, or LeakGraph built as a shared library?)"
                    )
                #else
                    warn("whole-process tracking is available on Linux only")
                #endif
                return false
            }
            applySettings()
            return true
        #endif
    }

    /// Hands the stack mode and the scope provider to the C side (called when recording starts
    /// and whenever the stack mode changes).
    static func applySettings() {
        let configuration = Configuration.shared
        let interval = configuration.stackInterval.load(ordering: .relaxed)
        lg_process_set_stacks(
            Int32(interval == 0 ? 0 : configuration.stackDepth.load(ordering: .relaxed)), Int32(interval))
        installScopeProvider()
    }

    /// The ids of the live objects recorded in `scope` since `checkpoint` (cheap: nothing is
    /// held, no snapshot is taken). Empty when whole-process tracking is off.
    package static func liveObjectIDs(in scope: LeakScope) -> Set<UInt64> {
        var buffer: UnsafeMutablePointer<UInt64>?
        let count = lg_process_live_ids(scope.id, scope.checkpoint.nextObjectID, &buffer)
        guard let buffer else { return [] }
        defer { lg_process_free_ids(buffer) }
        return Set(UnsafeBufferPointer(start: buffer, count: count))
    }

    /// Installs the function the allocation hook asks for the current leak scope. Every lazy
    /// global it reads is initialised first: initialising one from inside the hook could wait on
    /// an initialisation this very thread is running.
    static func installScopeProvider() {
        guard isActive else { return }
        // LeakGraph's own lazy globals (the scope's task-local among them) are not the program's
        // objects: made unrecorded, they never appear in its dumps.
        lg_process_suppress(1)
        LeakScope.prepareForAllocationHook()
        lg_process_suppress(-1)
        lg_process_set_scope_provider { LeakScope.currentScopeIDIfAny() }
    }
}

/// Called by the C constructor once `LEAKGRAPH_TRACK=all` has started recording, before `main`:
/// reads the configuration (the full `LEAKGRAPH_STACKS` syntax, `LEAKGRAPH_DUMP_DIR`) so that a
/// program that never calls LeakGraph still gets its stacks and its dump at exit.
@_cdecl("lg_swift_process_tracking_started")
func processTrackingStartedFromEnvironment() {
    // LeakGraph's configuration and other lazy globals are its own, not the program's objects.
    lg_process_suppress(1)
    defer { lg_process_suppress(-1) }
    guard LeakGraph.isEnabled else { return }
    ProcessTracking.applySettings()
}

/// Called by CLeakGraphSupport's fork handler in the forking thread before fork() (fork_safety.c):
/// the lazy globals a child uses on every allocation and for its dump are finished here, so that
/// none is half-initialised (by another thread) in the child.
@_cdecl("lg_swift_before_fork")
func beforeFork() {
    LeakScope.prepareForAllocationHook()
    _ = Registry.shared
    Snapshotter.prepareForFork()
    preparePropertyWrappersForFork()
}
