import Foundation
import LeakGraph
import LeakGraphTesting
import Testing

/// Plain classes, unknown to LeakGraph.
private final class PlainOwner {
    var part: PlainPart?
    var onEvent: (() -> Void)?
    var count = 0
}

private final class PlainPart {
    var owner: PlainOwner?
}

@inline(never)
private func makePlainCycle() {
    let owner = PlainOwner()
    let part = PlainPart()
    owner.part = part
    part.owner = owner
}

@inline(never)
private func makeClosureCycle(weakly: Bool) {
    let owner = PlainOwner()
    let name = "event"
    if weakly {
        owner.onEvent = { [weak owner] in owner?.count += name.count }
    } else {
        owner.onEvent = { owner.count += name.count }
    }
}

/// A plain class whose task iterates a stream whose only continuation it keeps.
private final class PlainListener: @unchecked Sendable {
    // @unchecked Sendable: `seen` is written by its task only.
    var continuation: AsyncStream<Int>.Continuation?
    var task: Task<Void, Never>?
    var seen = 0

    func start() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.continuation = continuation
        task = Task { for await value in stream { self.seen += value } }
    }
}

/// Starts a listener and drops it: its task can never finish unless the stream was finished.
@inline(never)
private func startListener(finishing: Bool) {
    let listener = PlainListener()
    listener.start()
    if finishing { listener.continuation?.finish() }
}

/// The checks with whole-process tracking (these run when the suite runs with
/// `LEAKGRAPH_TRACK=all`, as CI does; otherwise plain classes are invisible by design).
@Suite(
    "Checks with whole-process tracking",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct ProcessWideChecksTests {
    @Test("a leaked cycle of plain classes fails the check, naming the types and fields")
    func plainCycleFails() async throws {
        let (scope, _) = LeakScope.run { makePlainCycle() }
        let findings = try #require(await LeakCheck.check(scope: scope, name: "plainCycleFails"))
        #expect(findings.message.contains("leaked in cycles nothing else holds"), "\(findings.message)")
        #expect(findings.message.contains("PlainOwner") && findings.message.contains("PlainPart"))
        #expect(findings.message.contains("—part→") && findings.message.contains("—owner→"), "\(findings.message)")
    }

    @Test("a closure capturing its owner strongly fails; its [weak] twin passes")
    func closureCapture() async throws {
        let (strong, _) = LeakScope.run { makeClosureCycle(weakly: false) }
        let findings = try #require(await LeakCheck.check(scope: strong, name: "closureCapture"))
        #expect(findings.message.contains("PlainOwner"), "\(findings.message)")
        #expect(findings.message.contains("context of"), "\(findings.message)")
        let (weak, _) = LeakScope.run { makeClosureCycle(weakly: true) }
        let none = await LeakCheck.check(scope: weak, name: "closureCaptureWeak")
        #expect(none == nil, "\(none?.message ?? "")")
    }

    @Test("a task that can never finish fails the check, naming the task; its finished twin passes")
    func taskThatCanNeverFinish() async throws {
        let (scope, _) = LeakScope.run { startListener(finishing: false) }
        // Until its task waits on the stream (the cooperative pool may be busy with other suites).
        try await Task.sleep(for: .milliseconds(300))
        // A busy process: the task may still be on its way to the wait, so the check is made again
        // for a while.
        var outcome = await LeakCheck.run(scope: scope, name: "taskThatCanNeverFinish")
        for _ in 0..<8 where outcome.findings == nil {
            try await Task.sleep(for: .milliseconds(250))
            outcome = await LeakCheck.run(scope: scope, name: "taskThatCanNeverFinish")
        }
        if let findings = outcome.findings {
            #expect(
                findings.message.contains("PlainListener") && findings.message.contains("Task"), "\(findings.message)")
            #expect(findings.message.contains("can never finish"), "\(findings.message)")
        } else {
            // A stale word on a thread's stack or in another task's frames (a slot the code that
            // started the listener left behind) may point at the listener: then the check cannot
            // rule out a holder, and says so — never silence.
            #expect(
                outcome.notes.contains {
                    $0.contains("possible leak") && $0.contains("PlainListener") && $0.contains("Task")
                }, "neither a failure nor a possible leak: \(outcome.notes)")
        }
        let (finished, _) = LeakScope.run { startListener(finishing: true) }
        try await Task.sleep(for: .milliseconds(300))
        let none = await LeakCheck.check(scope: finished, name: "taskThatFinished")
        #expect(none == nil, "\(none?.message ?? "")")
    }

    @Test("a singleton's run-loop task, waiting on what the singleton holds, is held by its global")
    func singletonRunLoopIsHeldByItsGlobal() async throws {
        let (scope, _) = await LeakScope.run { await ProcessWideService.shared.start() }
        // Until its task waits in the loop (the cooperative pool may be busy with other suites).
        try await Task.sleep(for: .milliseconds(300))
        let outcome = await LeakCheck.run(scope: scope, name: "singletonRunLoopIsHeldByItsGlobal")
        // The actor's task's frames hold it twice (an owned reference and a borrowed copy), as
        // many words as its unexplained references: the global `shared` keeps one of them.
        #expect(outcome.findings == nil, "\(outcome.findings?.message ?? "")")
    }

    @Test("objects that are merely alive (a global, a cache) do not fail the check")
    func aliveIsNotBlamed() async {
        let (scope, _) = LeakScope.run { ProcessWideCache.shared.entries.append(PlainPart()) }
        let findings = await LeakCheck.check(scope: scope, name: "aliveIsNotBlamed")
        #expect(findings == nil, "\(findings?.message ?? "")")
    }
}

/// A cache the process keeps: what a test puts in it stays alive on purpose.
private final class ProcessWideCache: @unchecked Sendable {  // touched by one test only
    static let shared = ProcessWideCache()
    var entries: [PlainPart] = []
}

/// A service the process keeps (`static let shared`) whose run loop is a task waiting on a
/// continuation its loop stores: the task, the service and the loop hold one another, and only
/// the global holds the service, on purpose (FlyingFox's client socket pool is made so: an actor
/// whose isolated task's frames hold the actor beside a borrowed copy of it).
private actor ProcessWideService {
    static let shared = ProcessWideService()
    let loop = ServiceLoop()
    private var started = false

    func start() {
        guard !started else { return }
        started = true
        Task { await loop.run() }
    }
}

/// Waits until resumed; the continuation is kept under its lock.
private final class ServiceLoop: @unchecked Sendable {  // `continuation` is guarded by `lock`
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    func run() async {
        await withCheckedContinuation { continuation in lock.withLock { self.continuation = continuation } }
    }
}
