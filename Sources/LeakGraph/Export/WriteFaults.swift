import Foundation
import Synchronization

/// Faults injected into the file writes of dumps and reports, for LeakGraph's own fault tests:
/// `LEAKGRAPH_FAULT_INJECTION=write:ENOSPC@3` fails the third write call and every one after it
/// with ENOSPC (`EIO` likewise); `write:EINTR@2` interrupts every second call and `write:short@2`
/// makes every second call write half of what it was given (both must be retried, never lost).
/// Unset, it costs one load per write call (a call writes up to 64 KiB).
enum WriteFaults {
    enum Fault: Equatable {
        case error(Int32)
        case interrupted
        case short
    }

    private struct Plan {
        let fault: Fault
        let from: Int
    }

    private static let plan: Plan? = {
        guard let text = ProcessInfoLite.value(of: "LEAKGRAPH_FAULT_INJECTION"), text.hasPrefix("write:") else {
            return nil
        }
        let spec = text.dropFirst("write:".count).split(separator: "@")
        guard spec.count == 2, let count = Int(spec[1]), count >= 1 else {
            warn("LEAKGRAPH_FAULT_INJECTION=\(text) is not write:<ENOSPC|EIO|EINTR|short>@<n>: ignored")
            return nil
        }
        switch spec[0] {
        case "ENOSPC": return Plan(fault: .error(ENOSPC), from: count)
        case "EIO": return Plan(fault: .error(EIO), from: count)
        case "EINTR": return Plan(fault: .interrupted, from: count)
        case "short": return Plan(fault: .short, from: count)
        default:
            warn("LEAKGRAPH_FAULT_INJECTION=\(text): unknown fault \(spec[0]): ignored")
            return nil
        }
    }()

    private static let calls = Atomic<Int>(0)

    /// The fault for this write call, if one is planned.
    static func next() -> Fault? {
        guard let plan else { return nil }
        let call = calls.wrappingAdd(1, ordering: .relaxed).newValue
        switch plan.fault {
        case .error: return call >= plan.from ? plan.fault : nil
        case .interrupted, .short: return call % plan.from == 0 ? plan.fault : nil
        }
    }
}
