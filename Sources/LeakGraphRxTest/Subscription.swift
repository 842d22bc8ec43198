/// When a test observable was subscribed to, and when that subscription was disposed
/// (`Int.max` while it still runs).
///
/// ```swift
/// XCTAssertEqual(xs.subscriptions, [Subscription(200, 450)])
/// ```
public struct Subscription: Hashable, Sendable, CustomDebugStringConvertible {
    /// The subscription's time.
    public let subscribe: Int
    /// The disposal's time, `Int.max` if not disposed.
    public let unsubscribe: Int

    /// A subscription made at `subscribe`, never disposed.
    public init(_ subscribe: Int) {
        self.subscribe = subscribe
        unsubscribe = Int.max
    }

    /// A subscription made at `subscribe` and disposed at `unsubscribe`.
    public init(_ subscribe: Int, _ unsubscribe: Int) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `(200: 1000)`, or `(200: Infinity)` while it runs, as RxTest prints it.
    public var debugDescription: String {
        "(\(subscribe): \(unsubscribe != Int.max ? String(unsubscribe) : "Infinity"))"
    }
}
