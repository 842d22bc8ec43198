/// How an owner refers to a target.
///
/// Only references that keep their target alive (``keepsAlive``: `.strong` and `.unmanaged`)
/// form cycles. `.unknown` marks a reference that was found (for example inside a closure
/// context) but whose strength could not be proven: the detector never treats it as owning, so
/// it can never produce a false *leaked* verdict.
public enum EdgeKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A strong reference: it keeps the target alive.
    case strong
    /// A `weak` reference: it does not keep the target alive.
    case weak
    /// An `unowned` (or `unowned(unsafe)`) reference: it does not keep the target alive.
    case unowned
    /// A reference whose strength could not be determined.
    case unknown
    /// A reference whose type does not say it owns its target — an `Unmanaged` (which
    /// `passRetained` may have made owning), a word of memory whose type could not be read (a
    /// `ManagedBuffer`'s tail slot, a `Mutex`'s contents) — counted as owning because the
    /// target's retain count has exactly that many references nothing else explains.
    ///
    /// Found references of this sort that the counts do not confirm are `.unknown` (an
    /// `Unmanaged`) or left out (a word that only looks like a reference).
    case unmanaged

    /// Whether the reference keeps its target alive (`.strong` and `.unmanaged`).
    public var keepsAlive: Bool { self == .strong || self == .unmanaged }

    var code: UInt8 {
        switch self {
        case .strong: 0
        case .weak: 1
        case .unowned: 2
        case .unknown: 3
        case .unmanaged: 4
        }
    }

    init(code: UInt8) {
        switch code {
        case 0: self = .strong
        case 1: self = .weak
        case 2: self = .unowned
        case 4: self = .unmanaged
        default: self = .unknown
        }
    }
}

/// Where an edge in a snapshot came from.
public enum EdgeOrigin: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reported by code through `LeakGraph.addEdge` or a property wrapper.
    case declared
    /// Found by reflection on a stored property at snapshot time.
    case reflected
    /// Found by scanning a closure's captured context at snapshot time.
    case captured
}
