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

    /// The same task, capturing the listener weakly: it still waits forever, but holds nothing
    /// of the listener's.
    func startWeakly() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.continuation = continuation
        task = Task { [weak self] in for await value in stream { self?.handle(value) } }
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

    /// Waits until the tasks started so far have suspended (a bigger batch takes longer).
    static func waitForSuspendedTasks() { usleep(1_000_000) }

    static let all: [Scenario] = [
        // Leaked: the stream's storage is held only by the listener's continuation and the task's
        // frames, whose words outnumber what they own; with nothing outside holding the storage
        // its unexplained references are the task's. Tracking only the listener, the storage
        // is not an object of the snapshot: a possible leak, never "No leaks".
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
        Scenario(name: "task-awaiting-its-owners-throwing-stream", expected: .leaked, expectedTrackedOnly: .alive) {
            ThrowingStreamListener(label: "task-awaiting-its-owners-throwing-stream").start()
            letTasksSuspend()
        },
        // The stream's continuation is kept by a global: a producer that can still send, so the
        // task can still finish — alive, not leaked. In a debug build the global array's buffer
        // is allocated inside libswiftCore, unrecorded: found through the globals.
        Scenario(name: "task-awaiting-a-live-producer", expected: .retained, expectedTrackedOnly: .retained) {
            let listener = StreamListener(label: "task-awaiting-a-live-producer")
            listener.start()
            TaskScenarios.producers.append(listener.continuation!)
            listener.continuation = nil
            letTasksSuspend()
        },
        // The stream's continuation is kept in a local array of a thread that still runs (blocked
        // in the kernel): a producer that can still send, found on that thread's stack through
        // the array's buffer — alive, not leaked.
        Scenario(
            name: "task-awaiting-a-producer-on-a-threads-stack", expected: .retained, expectedTrackedOnly: .retained
        ) {
            let listener = StreamListener(label: "task-awaiting-a-producer-on-a-threads-stack")
            listener.start()
            TaskScenarios.keepOnAThreadsStack(listener.continuation!)
            listener.continuation = nil
            letTasksSuspend()
        },
        // The continuation is kept by another task, started and forgotten, that sends after a
        // sleep: that task's closure context holds it — alive, not leaked.
        Scenario(name: "task-awaiting-a-producer-task", expected: .retained, expectedTrackedOnly: .retained) {
            let listener = StreamListener(label: "task-awaiting-a-producer-task")
            listener.start()
            let continuation = listener.continuation!
            Task {
                try? await Task.sleep(for: .seconds(600))
                continuation.yield(1)
            }
            listener.continuation = nil
            letTasksSuspend()
        },
        // The continuation is kept by a block Dispatch will run later — alive, not leaked.
        Scenario(name: "task-awaiting-a-dispatch-producer", expected: .retained, expectedTrackedOnly: .retained) {
            let listener = StreamListener(label: "task-awaiting-a-dispatch-producer")
            listener.start()
            let continuation = listener.continuation!
            DispatchQueue.global().asyncAfter(deadline: .now() + 600) { continuation.yield(1) }
            listener.continuation = nil
            letTasksSuspend()
        },
        // A task group's child awaits a continuation the owner keeps; the owner's task awaits
        // the group: neither can ever finish. Tracking every object, a leaked cycle: the child's
        // parent link makes the two one task family, whose frames are credited together with the
        // owner's references. Tracking only the owner, a possible leak, never "No leaks".
        Scenario(name: "task-group-child-waiting-forever", expected: .leaked, expectedTrackedOnly: .alive) {
            GroupOwner(label: "task-group-child-waiting-forever").start()
            letTasksSuspend()
        },
        // A loop that sleeps: the clock resumes it, so it is alive, never leaked.
        Scenario(name: "task-sleeping-loop-holding-self", expected: .retained, expectedTrackedOnly: .retained) {
            Poller(label: "task-sleeping-loop-holding-self").start()
            letTasksSuspend()
        },
        // [weak self]: the task waits forever, but holds nothing of the listener's.
        Scenario(name: "task-weak-self", expected: .freed) {
            let listener = StreamListener(label: "task-weak-self")
            listener.startWeakly()
            withExtendedLifetime(listener) { letTasksSuspend() }
        },
    ]

    /// Keeps `continuation` only in a local array of a thread that then blocks forever: nothing
    /// but that thread's stack refers to the array.
    static func keepOnAThreadsStack(_ continuation: AsyncStream<Int>.Continuation) {
        let handedOver = DispatchSemaphore(value: 0)
        let box = ContinuationBox(continuation)
        let thread = Thread {
            let kept = [box.take()]
            handedOver.signal()
            withExtendedLifetime(kept) { DispatchSemaphore(value: 0).wait() }
        }
        thread.name = "producer"
        thread.start()
        handedOver.wait()
    }

    /// Continuations a scenario keeps, as a producer elsewhere in a program would.
    // nonisolated(unsafe): a scenario runs on its process's main thread only.
    nonisolated(unsafe) static var producers: [AsyncStream<Int>.Continuation] = []
}

/// `StreamListener` with a throwing stream.
final class ThrowingStreamListener: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: as `StreamListener`.
    var continuation: AsyncThrowingStream<Int, any Error>.Continuation?
    var task: Task<Void, Never>?
    var received = 0

    func start() {
        let (stream, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        self.continuation = continuation
        task = Task {
            do {
                for try await value in stream { self.received += value }
            } catch {}
        }
    }
}

/// An object whose task polls it on a timer until cancelled.
final class Poller: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: as `StreamListener`.
    var task: Task<Void, Never>?
    var ticks = 0

    func start() {
        task = Task {
            while !Task.isCancelled {
                self.ticks += 1
                try? await Task.sleep(for: .seconds(600))
            }
        }
    }
}

/// Hands a continuation to another thread and forgets it.
final class ContinuationBox: @unchecked Sendable {
    // @unchecked Sendable: `take()` is called once, by the receiving thread, before the sender
    // goes on (it waits for a semaphore).
    private var continuation: AsyncStream<Int>.Continuation?

    init(_ continuation: AsyncStream<Int>.Continuation) { self.continuation = continuation }

    func take() -> AsyncStream<Int>.Continuation {
        defer { continuation = nil }
        return continuation!
    }
}

/// An object whose task runs a group whose one child awaits a continuation the object keeps.
final class GroupOwner: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: as `StreamListener`.
    var pending: CheckedContinuation<Int, Never>?
    var task: Task<Void, Never>?

    func start() {
        task = Task {
            await withTaskGroup(of: Int.self) { group in
                group.addTask { await withCheckedContinuation { self.pending = $0 } }
                for await _ in group {}
            }
        }
    }
}
