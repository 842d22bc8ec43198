import Dispatch
import Foundation
import LeakGraph

/// Runs work on a Dispatch queue that may be concurrent: actions may run in parallel.
///
/// `observe(on:)` still delivers one event at a time, in order, on such a scheduler.
///
/// ```swift
/// let background = ConcurrentDispatchQueueScheduler(qos: .background)
/// ```
public final class ConcurrentDispatchQueueScheduler: SchedulerType, Sendable {
    /// Seconds, as Foundation counts them.
    public typealias TimeInterval = Foundation.TimeInterval
    /// A point in time.
    public typealias Time = Date

    let configuration: DispatchQueueConfiguration

    /// The queue the work runs on.
    public var queue: DispatchQueue { configuration.queue }

    /// The current time.
    public var now: Date { Date() }

    /// A scheduler on `queue`.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    /// A scheduler on the global queue of quality of service `qos`.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(queue: DispatchQueue.global(qos: qos.qosClass), leeway: leeway)
    }

    /// Runs `action` asynchronously on the queue.
    public final func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable)
        -> Disposable
    {
        configuration.schedule(state, action: action)
    }

    /// Runs `action` on the queue once `dueTime` has passed.
    public final func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Runs `action` on the queue after `startAfter`, then every `period`.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}

/// A scheduler on any Dispatch queue, serial or concurrent (LeakGraphRx's own name; RxSwift code
/// uses ``SerialDispatchQueueScheduler`` or ``ConcurrentDispatchQueueScheduler``).
public typealias DispatchQueueScheduler = ConcurrentDispatchQueueScheduler
