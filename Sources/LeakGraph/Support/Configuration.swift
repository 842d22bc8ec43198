import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Process-wide switches read on the allocation hot path; each is one relaxed atomic load.
final class Configuration: Sendable {
    static let shared = Configuration()

    /// `LEAKGRAPH=off` turns tracking off: `TrackedObject.init` then costs one relaxed load.
    let enabled: Atomic<Bool>
    /// Whether tracking has been on at any moment of the process (turning it off keeps what was
    /// tracked): a dump says "nothing was checked" only when it never was.
    let everEnabled: Atomic<Bool>
    let stackDepth: Atomic<Int>
    /// Capture a stack every `stackInterval` allocations; 0 means never.
    let stackInterval: Atomic<Int>
    let allocationCounter = Atomic<Int>(0)
    /// Capture a stack for edges that ask for their creation site.
    let edgeSites: Atomic<Bool>

    private init() {
        var enabled = true
        if let value = ProcessInfoLite.value(of: "LEAKGRAPH")?.lowercased() {
            switch value {
            case "off", "0", "false", "no", "disabled": enabled = false
            case "on", "1", "true", "yes", "enabled", "": enabled = true
            default:
                warn("LEAKGRAPH=\(value) is not one of on/off; tracking stays on")
            }
        }
        #if LEAKGRAPH_DISABLED
            enabled = false
        #endif
        var mode = StackCaptureMode.all(depth: StackCaptureMode.defaultDepth)
        if let text = ProcessInfoLite.value(of: "LEAKGRAPH_STACKS") {
            if let parsed = StackCaptureMode(parsing: text) {
                mode = parsed
            } else {
                warn(
                    "LEAKGRAPH_STACKS=\(text) is not valid (use off, all[:depth] or sampled[:every[:depth]]); using \(mode)"
                )
            }
        }
        self.enabled = Atomic(enabled)
        self.everEnabled = Atomic(enabled)
        self.stackDepth = Atomic(mode.depth)
        self.stackInterval = Atomic(mode.interval)
        self.edgeSites = Atomic(mode != .off)
        lg_process_set_stacks(Int32(mode.depth), Int32(mode.interval))
        DumpAtExit.armFromEnvironment()
    }

    var stackMode: StackCaptureMode {
        get {
            let interval = stackInterval.load(ordering: .relaxed)
            let depth = stackDepth.load(ordering: .relaxed)
            switch interval {
            case 0: return .off
            case 1: return .all(depth: depth)
            default: return .sampled(every: interval, depth: depth)
            }
        }
        set {
            stackDepth.store(newValue.depth, ordering: .relaxed)
            stackInterval.store(newValue.interval, ordering: .relaxed)
            lg_process_set_stacks(Int32(newValue.depth), Int32(newValue.interval))
        }
    }
}

/// Reads the environment without Foundation so that the registry can start inside any process.
enum ProcessInfoLite {
    /// The value of the environment variable `name`, or nil when it is not set.
    ///
    /// One `getenv`, not a dictionary of the whole environment: the registry starts in every test
    /// process, and building that dictionary cost about 860,000 instructions in each.
    static func value(of name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}

/// Writes one line to standard error, prefixed with `leakgraph:`.
package func warn(_ message: String) {
    let line = "leakgraph: \(message)\n"
    line.withCString { pointer in
        _ = write(2, pointer, strlen(pointer))
    }
}
