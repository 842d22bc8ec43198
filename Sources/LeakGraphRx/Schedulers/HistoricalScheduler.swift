import Foundation

/// A virtual-time scheduler whose clock is a `Date`, for replaying recorded, timestamped data.
///
/// ```swift
/// let scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 0))
/// scheduler.advanceTo(Date(timeIntervalSince1970: 60))   // runs the first minute's work
/// ```
open class HistoricalScheduler: VirtualTimeScheduler<HistoricalSchedulerTimeConverter>, @unchecked Sendable {
    // @unchecked Sendable: as VirtualTimeScheduler; no state of its own.
    /// A scheduler whose clock starts at `initialClock`.
    public init(initialClock: RxTime = Date(timeIntervalSince1970: 0)) {
        super.init(initialClock: initialClock, converter: HistoricalSchedulerTimeConverter())
    }
}
