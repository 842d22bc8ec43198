import Foundation
import LeakGraph

/// Runs work as operations on an `OperationQueue`, with a queue priority.
///
/// ```swift
/// let queue = OperationQueue()
/// queue.maxConcurrentOperationCount = 2
/// let scheduler = OperationQueueScheduler(operationQueue: queue)
/// ```
public final class OperationQueueScheduler: ImmediateSchedulerType, Sendable {
    /// The queue the operations are added to.
    public let operationQueue: OperationQueue
    /// The priority given to each operation.
    public let queuePriority: Operation.QueuePriority

    /// A scheduler adding operations of priority `queuePriority` to `operationQueue`.
    public init(operationQueue: OperationQueue, queuePriority: Operation.QueuePriority = .normal) {
        self.operationQueue = operationQueue
        self.queuePriority = queuePriority
    }

    /// Adds an operation running `action`; disposing cancels the operation.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let token = ScheduledWorkToken()
        let work = UncheckedSendable(ScheduledWork(state: state, action: action, token: token))
        let operation = BlockOperation { work.value.run() }
        operation.queuePriority = queuePriority
        operationQueue.addOperation(operation)
        return CancelOperation(operation: operation, token: token)
    }
}

/// Cancels an operation and the work it runs.
private final class CancelOperation: Cancelable {
    private let operation: Operation
    private let token: ScheduledWorkToken

    init(operation: Operation, token: ScheduledWorkToken) {
        self.operation = operation
        self.token = token
    }

    var isDisposed: Bool { token.isDisposed }

    func dispose() {
        operation.cancel()
        token.dispose()
    }
}
