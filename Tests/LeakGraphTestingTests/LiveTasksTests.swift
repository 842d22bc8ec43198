import Foundation
import LeakGraph
import LeakGraphTesting
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
        withKnownIssue { expectNoRunningTasks() }
        owner.continuation?.yield(2)
        owner.continuation?.finish()
        #expect(await owner.task?.value == 2)
        owner.task = nil
        #expect(ownersTasks().isEmpty)
    }
}
