import Dispatch
import Foundation
import LeakGraph

/// A time interval for schedulers: Dispatch's (`.seconds(1)`, `.milliseconds(300)`).
public typealias RxTimeInterval = DispatchTimeInterval

/// A point in time for schedulers.
public typealias RxTime = Date

/// A scheduler that can also run work after a delay, and periodically.
///
/// ```swift
/// let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "timers")
/// _ = scheduler.scheduleRelative((), dueTime: .milliseconds(100)) { _ in
///     print("100 ms later")
///     return Disposables.create()
/// }
/// ```
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's current time.
    var now: RxTime { get }

    /// Runs `action` with `state` once `dueTime` has passed.
    ///
    /// - Returns: A disposable that cancels the action if it has not started (best effort).
    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable

    /// Runs `action` after `startAfter`, then every `period`, each run getting the state the
    /// previous one returned.
    ///
    /// - Returns: A disposable that stops the timer.
    func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable
}

extension SchedulerType {
    /// A periodic timer made of one delayed action per tick, each scheduled by the previous one.
    ///
    /// Schedulers with a native timer (the Dispatch ones) implement it directly instead.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        let timer = EmulatedPeriodicTimer(scheduler: self, period: period, action: action)
        timer.start(state, after: startAfter)
        return timer
    }

    /// `scheduleRelative` with a recursion: the action calls `recurse(state, dueTime)` to run
    /// again later. Disposing the result stops it.
    func scheduleRecursive<State>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping (_ state: State, _ recurse: (State, RxTimeInterval) -> Void) -> Void
    ) -> Disposable {
        let recursion = DelayedRecursiveScheduler(scheduler: self, action: action)
        recursion.schedule(state, after: dueTime)
        return recursion
    }
}

extension DispatchTimeInterval {
    /// The interval in seconds (`.never` is infinity).
    var seconds: TimeInterval {
        switch self {
        case .seconds(let value): TimeInterval(value)
        case .milliseconds(let value): TimeInterval(value) / 1_000
        case .microseconds(let value): TimeInterval(value) / 1_000_000
        case .nanoseconds(let value): TimeInterval(value) / 1_000_000_000
        case .never: .infinity
        @unknown default: .infinity
        }
    }

    /// Whether the interval is zero or negative.
    var isNow: Bool { seconds <= 0 }

    /// `1 s`, `250 ms`, `40 µs`, `100 ns`, `never`: as reports show it.
    var readable: String {
        switch self {
        case .seconds(let value): "\(value) s"
        case .milliseconds(let value): "\(value) ms"
        case .microseconds(let value): "\(value) µs"
        case .nanoseconds(let value): "\(value) ns"
        case .never: "never"
        @unknown default: "\(self)"
        }
    }
}

extension Date {
    /// The date `interval` later.
    func adding(_ interval: RxTimeInterval) -> Date {
        addingTimeInterval(interval.seconds)
    }
}
