import Foundation
import LeakGraph
import LeakGraphTesting
import Synchronization
import Testing

/// An object that keeps a task waiting on a stream whose continuation it also keeps.
private final class StreamOwner: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: set before the task starts, read after it finished.
    var continuation: AsyncStream<Int>.Continuation?
    var task: Task<Int, Never>?

    func start() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.continuation = continuation
        task = Task {
            var total = 0
            for await value in stream { total += value }
            return total
        }
    }
}

/// An object whose task, started at low priority, awaits a continuation the object keeps and
/// ignores cancellation.
private final class ContinuationOwner: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: `task` is set before the test reads it, on the test's own task.
    let pending = PendingContinuation()
    var task: Task<Int, Never>?

    func start() {
        task = Task(priority: .low) { [pending] in
            await withCheckedContinuation { continuation in pending.value.withLock { $0 = continuation } }
        }
    }
}

/// An object whose task waits in a helper its closure calls: where it waits is not where it was
/// started.
private final class HelperWaiter: TrackedObject, @unchecked Sendable {
    // @unchecked Sendable: set before the task starts, read after it finished.
    var continuation: AsyncStream<Int>.Continuation?
    var task: Task<Int, Never>?

    func start() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.continuation = continuation
        task = Task { await Self.sum(of: stream) }
    }

    static func sum(of stream: AsyncStream<Int>) async -> Int {
        var total = 0
        for await value in stream { total += value }
        return total
    }
}

/// A continuation one task stores and another resumes.
private final class PendingContinuation: Sendable {
    let value = Mutex<CheckedContinuation<Int, Never>?>(nil)
}

@Suite("Live tasks")
struct LiveTasksTests {
    /// The tasks held by a `StreamOwner`.
    private func ownersTasks() -> [LiveTask] {
        LeakGraph.liveTasks().filter { task in task.heldBy.contains { $0.hasPrefix("StreamOwner") } }
    }

    @Test("a task held by an object is seen, named after its closure, until it finishes")
    func seenUntilFinished() async throws {
        let owner = StreamOwner(label: "live tasks")
        owner.start()
        // Until it waits on the stream (the cooperative pool may be busy with other suites).
        var tasks: [LiveTask] = []
        for _ in 0..<200 where tasks.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            tasks = ownersTasks()
        }
        let task = try #require(tasks.first)
        #expect(tasks.count == 1)
        #expect(task.heldBy.contains("StreamOwner —task._task→"), "\(task.heldBy)")
        #expect(task.waitingIn?.contains("StreamOwner.start()") == true, "\(task.description)")
        #expect(!task.leaked)
        #expect(task.status?.hasPrefix("suspended") == true, "\(task.description)")
        withKnownIssue { expectNoRunningTasks() }
        owner.continuation?.yield(2)
        owner.continuation?.finish()
        #expect(await owner.task?.value == 2)
        owner.task = nil
        #expect(ownersTasks().isEmpty)
    }

    @Test("a task waiting in a helper is said to be started in the closure that calls it")
    func startedInItsClosure() async throws {
        let waiter = HelperWaiter(label: "started in")
        waiter.start()
        var tasks: [LiveTask] = []
        for _ in 0..<200 where tasks.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            tasks = LeakGraph.liveTasks().filter { task in task.heldBy.contains { $0.hasPrefix("HelperWaiter") } }
        }
        let task = try #require(tasks.first)
        #expect(task.waitingIn?.contains("HelperWaiter.sum(of:)") == true, "\(task.description)")
        #expect(task.startedIn?.contains("closure #1 in HelperWaiter.start()") == true, "\(task.description)")
        #expect(task.description.contains("(started in closure #1 in HelperWaiter.start()"), "\(task.description)")
        waiter.continuation?.finish()
        #expect(await waiter.task?.value == 0)
        waiter.task = nil
    }

    @Test("a task's status says its priority and that it was cancelled")
    func statusSaysPriorityAndCancellation() async throws {
        let owner = ContinuationOwner(label: "task status")
        owner.start()
        for _ in 0..<200 where owner.pending.value.withLock({ $0 == nil }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        owner.task?.cancel()
        let task = try #require(
            LeakGraph.liveTasks().first { task in task.heldBy.contains { $0.hasPrefix("ContinuationOwner") } })
        #expect(task.status == "suspended, priority low, cancelled", "\(task.description)")
        owner.pending.value.withLock { $0?.resume(returning: 1) }
        #expect(await owner.task?.value == 1)
    }
}
