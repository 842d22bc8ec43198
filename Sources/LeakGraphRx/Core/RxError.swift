/// Errors LeakGraphRx itself produces.
public enum RxError: Swift.Error, CustomDebugStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: the object of `disposed` is only described (its address and type),
    // never used.
    /// An operation on an object that was already disposed.
    case disposed(object: AnyObject)
    /// A sequence produced no element where one was required.
    case noElements
    /// Unknown error.
    case unknown

    /// A readable description.
    public var debugDescription: String {
        switch self {
        case .disposed(let object): "Object `\(object)` was already disposed."
        case .noElements: "Sequence doesn't contain any elements."
        case .unknown: "Unknown error occurred."
        }
    }
}
