import Foundation
import LeakGraph

/// A listener that owns the task iterating a stream whose only continuation it also holds: once
/// the listener is dropped nothing can finish the stream, so the task waits forever and keeps the
/// listener alive.
final class StreamListener: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: a scenario's objects are used by its task and its main thread, one
    // after the other (the main thread waits before it looks).
    var continuation: AsyncStream<Int>.Continuation?
    var task: Task<Void, Never>?
    var received = 0

    func start() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.continuation = continuation
        task = Task { for await value in stream { self.handle(value) } }
    }

    func handle(_ value: Int) { received += value }
}

/// An object whose task awaits a checked continuation the object itself keeps.
final class ContinuationKeeper: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: as `StreamListener`.
    var pending: CheckedContinuation<Int, Never>?
    var value = 0
    var task: Task<Void, Never>?

    func start() {
        task = Task { self.value = await withCheckedContinuation { self.pending = $0 } }
    }
}

/// Swift concurrency: tasks that can never finish, and what they keep alive.
enum TaskScenarios {
    /// Long enough for a task to start and suspend on the cooperative pool.
    static func letTasksSuspend() { usleep(100_000) }

    static let all: [Scenario] = [
        // Tracked objects only, the closure's context and the stream's storage are not recorded:
        // the cycle may be seen only partly (a possible leak, never "No leaks").
        Scenario(name: "task-awaiting-its-owners-stream", expected: .leaked, expectedTrackedOnly: .alive) {
            StreamListener(label: "task-awaiting-its-owners-stream").start()
            letTasksSuspend()
        },
        Scenario(name: "task-stream-finished", expected: .freed) {
            let listener = StreamListener(label: "task-stream-finished")
            listener.start()
            letTasksSuspend()
            listener.continuation?.finish()
            listener.continuation = nil
            letTasksSuspend()
        },
        Scenario(name: "task-awaiting-a-continuation-its-owner-keeps", expected: .leaked) {
            ContinuationKeeper(label: "task-awaiting-a-continuation-its-owner-keeps").start()
            letTasksSuspend()
        },
        Scenario(name: "task-continuation-resumed", expected: .freed) {
            let keeper = ContinuationKeeper(label: "task-continuation-resumed")
            keeper.start()
            letTasksSuspend()
            keeper.pending?.resume(returning: 1)
            keeper.pending = nil
            letTasksSuspend()
        },
    ]
}
