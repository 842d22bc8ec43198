import Foundation
import LeakGraphRx

/// The scheduler ``Driver`` and ``Signal`` deliver on: a ``MainScheduler`` unless a test mocks it.
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// SharingScheduler.mock(scheduler: scheduler) {
///     let events = scheduler.start { viewModel.title.asObservable() }
/// }
/// ```
public enum SharingScheduler {
    /// Makes the scheduler shared sequences deliver on.
    public static var make: () -> SchedulerType { maker.withLock { $0 } }

    // A lock: the maker is read on every shared sequence made, from any thread.
    private static let maker = NSLockedMaker()

    /// Runs `action` with `scheduler` as the sharing scheduler, then restores the previous one.
    public static func mock(scheduler: SchedulerType, action: () throws -> Void) rethrows {
        try mock(makeScheduler: { scheduler }, action: action)
    }

    /// Runs `action` with `makeScheduler` making the sharing scheduler, then restores the previous one.
    public static func mock(makeScheduler: @escaping () -> SchedulerType, action: () throws -> Void) rethrows {
        let previous = maker.withLock { current in
            defer { current = makeScheduler }
            return current
        }
        defer { maker.withLock { $0 = previous } }
        try action()
    }
}

/// The maker behind a lock. `@unchecked Sendable`: the closure is only read and replaced under
/// the lock, and the schedulers it makes are themselves thread safe.
private final class NSLockedMaker: @unchecked Sendable {
    private let lock = NSLock()
    // A new MainScheduler per sequence, as RxCocoa makes: each counts its own pending work, so
    // a driver that delivers while another delivers (a relay driven from a driver, on the main
    // thread) still delivers synchronously, in order, instead of queueing behind it.
    private var make: () -> SchedulerType = { MainScheduler() }

    func withLock<Result>(_ body: (inout () -> SchedulerType) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&make)
    }
}
