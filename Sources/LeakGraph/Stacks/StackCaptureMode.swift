/// When allocation stacks are captured.
///
/// Set in code with ``LeakGraph/stackCaptureMode`` or with the environment variable
/// `LEAKGRAPH_STACKS`:
///
/// | value | mode |
/// |---|---|
/// | `off` | ``off`` |
/// | `all`, `on`, `all:64` | ``all(depth:)`` (depth 32 unless given) |
/// | `sampled`, `sampled:100`, `sampled:100:16` | ``sampled(every:depth:)`` |
///
/// Capturing costs about 0.2 µs per allocation at depth 32; only raw return addresses are kept,
/// identical stacks are stored once, and symbols are resolved only when a report is written.
public enum StackCaptureMode: Sendable, Hashable, CustomStringConvertible {
    /// No stacks: the cheapest mode.
    case off
    /// A stack for every tracked allocation.
    case all(depth: Int = StackCaptureMode.defaultDepth)
    /// A stack for one allocation in `every`.
    case sampled(every: Int, depth: Int = StackCaptureMode.defaultDepth)

    /// The default number of frames kept per stack.
    public static let defaultDepth = 32

    /// The largest depth accepted; deeper requests are clamped.
    public static let maximumDepth = 128

    /// Parses the `LEAKGRAPH_STACKS` syntax.
    ///
    /// - Returns: `nil` when `text` is not valid.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func number(_ index: Int, default value: Int) -> Int? {
            guard index < parts.count else { return value }
            guard let n = Int(parts[index]), n > 0 else { return nil }
            return n
        }
        switch parts.first ?? "" {
        case "off", "0", "false", "no", "none":
            guard parts.count == 1 else { return nil }
            self = .off
        case "all", "on", "1", "true", "yes":
            guard parts.count <= 2, let depth = number(1, default: Self.defaultDepth) else { return nil }
            self = .all(depth: min(depth, Self.maximumDepth))
        case "sampled", "sample":
            guard parts.count <= 3, let every = number(1, default: 100),
                let depth = number(2, default: Self.defaultDepth)
            else { return nil }
            self = .sampled(every: every, depth: min(depth, Self.maximumDepth))
        default:
            return nil
        }
    }

    /// The mode in `LEAKGRAPH_STACKS` syntax.
    public var description: String {
        switch self {
        case .off: "off"
        case .all(let depth): "all:\(depth)"
        case .sampled(let every, let depth): "sampled:\(every):\(depth)"
        }
    }

    var depth: Int {
        switch self {
        case .off: 0
        case .all(let depth), .sampled(_, let depth): max(1, min(depth, Self.maximumDepth))
        }
    }

    var interval: Int {
        switch self {
        case .off: 0
        case .all: 1
        case .sampled(let every, _): max(1, every)
        }
    }
}
