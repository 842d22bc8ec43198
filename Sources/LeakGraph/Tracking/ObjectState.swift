/// The lifecycle state a tracked object reports about itself, such as a subscription's sink.
///
/// A subscription that is `disposed`, `completed` or `errored` but still strongly held by a
/// cycle is a leak that outlived its purpose; reports flag it.
public enum ObjectState: String, Sendable, Hashable, Codable, CaseIterable {
    /// No state was reported.
    case unspecified
    /// Active: still delivering events.
    case active
    /// Disposed or cancelled.
    case disposed
    /// Terminated by a completion event.
    case completed
    /// Terminated by an error event.
    case errored

    var code: UInt8 {
        switch self {
        case .unspecified: 0
        case .active: 1
        case .disposed: 2
        case .completed: 3
        case .errored: 4
        }
    }

    init(code: UInt8) {
        self = Self.allCases[Int(min(code, 4))]
    }

    /// Whether the object has finished its work (disposed or terminated).
    public var isFinished: Bool { self == .disposed || self == .completed || self == .errored }
}
