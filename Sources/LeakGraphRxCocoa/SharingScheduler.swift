import LeakGraph
import LeakGraphRx
import Synchronization

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
    public static var make: () -> SchedulerType { maker.withLock { $0.value } }

    // Read on every shared sequence made, from any thread. A new MainScheduler per sequence, as
    // RxCocoa makes: each counts its own pending work, so a driver that delivers while another
    // delivers (a relay driven from a driver, on the main thread) still delivers synchronously,
    // in order, instead of queueing behind it. (The closure is only read and replaced under the
    // mutex; the schedulers it makes are thread safe.)
    private static let maker = Mutex(UncheckedSendable<() -> SchedulerType>({ MainScheduler() }))

    /// Runs `action` with `scheduler` as the sharing scheduler, then restores the previous one.
    public static func mock(scheduler: SchedulerType, action: () throws -> Void) rethrows {
        try mock(makeScheduler: { scheduler }, action: action)
    }

    /// Runs `action` with `makeScheduler` making the sharing scheduler, then restores the previous one.
    public static func mock(makeScheduler: @escaping () -> SchedulerType, action: () throws -> Void) rethrows {
        let replacement = UncheckedSendable(makeScheduler)
        let previous = maker.withLock { current in
            defer { current = replacement }
            return current
        }
        defer {
            // The mock's closure is released after unlocking.
            let mocked = maker.withLock { current in
                defer { current = previous }
                return current
            }
            _ = mocked
        }
        try action()
    }
}
