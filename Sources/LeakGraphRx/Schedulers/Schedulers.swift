import Dispatch
import LeakGraph

/// Something that runs work, now or later, on some thread.
///
/// LeakGraphRx is synchronous by default: events are delivered on the thread that sends them.
/// Schedulers only come in through ``ObservableType/observe(on:)`` and
/// ``ObservableType/subscribe(on:)``.
public protocol ImmediateSchedulerType: Sendable {
    /// Runs `action` with `state` on the scheduler.
    ///
    /// - Returns: A disposable that cancels the action if it has not started.
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable
}

/// A scheduler running work serially, in order, on a Dispatch queue.
///
/// ```swift
/// let scheduler = SerialDispatchQueueScheduler(queue: .global(), internalSerialQueueName: "work")
/// numbers.observe(on: scheduler).subscribe(onNext: { print($0) })
/// ```
public struct SerialDispatchQueueScheduler: ImmediateSchedulerType {
    /// The serial queue the work runs on.
    public let queue: DispatchQueue

    /// A scheduler on a new serial queue named `internalSerialQueueName` that targets `queue`.
    public init(queue: DispatchQueue, internalSerialQueueName: String) {
        self.queue = DispatchQueue(label: internalSerialQueueName, target: queue)
    }

    /// A scheduler on a new serial queue named `internalSerialQueueName`.
    public init(internalSerialQueueName: String, qos: DispatchQoS = .default) {
        self.queue = DispatchQueue(label: internalSerialQueueName, qos: qos)
    }

    /// A scheduler on a new serial queue with quality of service `qos`.
    public init(qos: DispatchQoS, internalSerialQueueName: String = "rx.global_dispatch_queue.serial") {
        self.queue = DispatchQueue(label: internalSerialQueueName, qos: qos)
    }

    /// Runs `action` asynchronously on the queue.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        DispatchQueueScheduler.schedule(on: queue, state, action: action)
    }
}

/// A scheduler running work asynchronously on a Dispatch queue (serial or concurrent).
public struct DispatchQueueScheduler: ImmediateSchedulerType {
    /// The queue the work runs on.
    public let queue: DispatchQueue

    /// A scheduler on `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Runs `action` asynchronously on the queue.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Self.schedule(on: queue, state, action: action)
    }

    static func schedule<StateType>(
        on queue: DispatchQueue, _ state: StateType, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let cancel = SingleAssignmentDisposable()
        let work = UncheckedSendable((state, action, cancel))
        queue.async {
            let (state, action, cancel) = work.value
            if cancel.isDisposed { return }
            cancel.setDisposable(action(state))
        }
        return cancel
    }
}

/// The main queue's scheduler.
public struct MainScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = MainScheduler()

    /// Runs `action` asynchronously on the main queue.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        DispatchQueueScheduler.schedule(on: .main, state, action: action)
    }
}
