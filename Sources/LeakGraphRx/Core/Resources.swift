import Synchronization

/// How many of LeakGraphRx's objects are alive: observables, sinks, disposables, subscriptions,
/// scheduled actions. RxSwift's `Resources.total`, always on (no `TRACE_RESOURCES` build).
///
/// ```swift
/// let before = Resources.total
/// runScenario()
/// XCTAssertEqual(Resources.total, before)   // everything the scenario made was released
/// ```
///
/// The count says *that* something is still alive; a LeakGraph leak check says what and why.
public enum Resources {
    private static let count = Atomic<Int32>(0)

    /// The number of live LeakGraphRx objects.
    public static var total: Int32 { count.load(ordering: .relaxed) }

    /// Counts one more resource (for custom operators that want to be counted); returns the new total.
    @discardableResult
    public static func incrementTotal() -> Int32 {
        count.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Counts one resource fewer; returns the new total.
    @discardableResult
    public static func decrementTotal() -> Int32 {
        count.wrappingSubtract(1, ordering: .relaxed).newValue
    }
}

/// A stored property that counts its owner in ``Resources/total`` from its initialisation to its
/// deinitialisation: zero bytes, one atomic add each way.
struct RxResource: ~Copyable {
    @inline(__always)
    init() { Resources.incrementTotal() }
    deinit { Resources.decrementTotal() }
}
