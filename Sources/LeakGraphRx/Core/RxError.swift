/// Errors LeakGraphRx itself produces.
public enum RxError: Swift.Error, CustomDebugStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: the object of `disposed` is only described (its address and type),
    // never used.
    /// Unknown error.
    case unknown
    /// An operation on an object that was already disposed.
    case disposed(object: AnyObject)
    /// An arithmetic overflow (an index or a count past `Int.max`).
    case overflow
    /// An argument out of range (`element(at:)` past the end of the sequence).
    case argumentOutOfRange
    /// A sequence produced no element where one was required.
    case noElements
    /// A sequence produced more than one element where one was required (`single()`).
    case moreThanOneElement
    /// A sequence did not produce an element in time.
    case timeout

    /// A readable description.
    public var debugDescription: String {
        switch self {
        case .unknown: "Unknown error occurred."
        case .disposed(let object): "Object `\(object)` was already disposed."
        case .overflow: "Arithmetic overflow occurred."
        case .argumentOutOfRange: "Argument out of range."
        case .noElements: "Sequence doesn't contain any elements."
        case .moreThanOneElement: "Sequence contains more than one element."
        case .timeout: "Sequence timeout."
        }
    }
}
