/// A notification sent to an observer: an element, an error or completion.
///
/// The grammar is `next* (error | completed)?`: once an observer received a terminal event it
/// receives nothing more.
///
/// ```swift
/// let events: [Event<Int>] = [.next(1), .next(2), .completed]
/// print(events.compactMap(\.element))   // [1, 2]
/// ```
@frozen
public enum Event<Element> {
    /// An element.
    case next(Element)
    /// The sequence terminated with an error.
    case error(Swift.Error)
    /// The sequence terminated successfully.
    case completed

    /// Whether this is `.error` or `.completed`.
    @inlinable
    public var isStopEvent: Bool {
        if case .next = self { return false }
        return true
    }

    /// The element of a `.next` event.
    @inlinable
    public var element: Element? {
        if case .next(let element) = self { return element }
        return nil
    }

    /// The error of an `.error` event.
    @inlinable
    public var error: Swift.Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Whether this is `.completed`.
    @inlinable
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Transforms the element of a `.next` event; a thrown error becomes an `.error` event.
    ///
    /// - Parameter transform: The element transform.
    /// - Returns: The transformed event.
    @inlinable
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let element):
            do { return .next(try transform(element)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Event: Sendable where Element: Sendable {}

extension Event: CustomDebugStringConvertible {
    /// `next(1)`, `error(…)` or `completed`.
    public var debugDescription: String {
        switch self {
        case .next(let element): "next(\(element))"
        case .error(let error): "error(\(error))"
        case .completed: "completed"
        }
    }
}
