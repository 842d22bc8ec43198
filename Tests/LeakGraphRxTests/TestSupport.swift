import LeakGraph
import LeakGraphRx
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// An event with an equatable rendering of errors, for comparing recorded sequences.
enum Recorded<Element: Equatable>: Equatable, CustomStringConvertible, @unchecked Sendable {  // test values only
    case next(Element)
    case error(String)
    case completed

    init(_ event: Event<Element>) {
        switch event {
        case .next(let element): self = .next(element)
        case .error(let error): self = .error("\(error)")
        case .completed: self = .completed
        }
    }

    var description: String {
        switch self {
        case .next(let element): "next(\(element))"
        case .error(let error): "error(\(error))"
        case .completed: "completed"
        }
    }
}

/// The test error.
struct TestError: Error, CustomStringConvertible {
    var description: String { "TestError" }
}

/// Records the events it receives; thread safe. Not a tracked object.
final class Recorder<Element: Equatable>: ObserverType, @unchecked Sendable {
    private let storage = Mutex<[Recorded<Element>]>([])

    func on(_ event: Event<Element>) {
        let recorded = Recorded(event)
        storage.withLock { $0.append(recorded) }
    }

    var events: [Recorded<Element>] { storage.withLock { $0 } }

    var elements: [Element] {
        events.compactMap { if case .next(let element) = $0 { element } else { nil } }
    }
}

/// A log of strings, thread safe.
final class Log: @unchecked Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    var entries: [String] { storage.withLock { $0 } }
}

/// What a lifecycle run left behind: the tracked objects allocated in its scope that are still
/// alive, and the cycles among them.
struct Outcome {
    let scope: LeakScope
    let snapshot: GraphSnapshot
    let report: LeakReport

    /// Tracked objects of the scope still alive (the suite also runs with `LEAKGRAPH_TRACK=all`:
    /// what whole-process tracking records besides is not what these tests are about).
    var alive: [ObjectInfo] {
        snapshot.objects.filter {
            $0.scope == scope.id && $0.id >= scope.checkpoint.nextObjectID && !$0.isRecordedProcessWide
        }
    }

    /// Bare type names (generic arguments dropped) of the objects still alive, sorted.
    var aliveTypes: [String] { alive.map { bareName($0.type) }.sorted() }

    /// Cycles made only of this scope's objects (whole-process ones included: a closure context
    /// can be a member).
    var cycles: [Cycle] {
        let mine = Set(
            snapshot.objects.filter { $0.scope == scope.id && $0.id >= scope.checkpoint.nextObjectID }.map(\.id))
        return report.cycles.filter { cycle in
            cycle.objects.allSatisfy { $0 >= scope.checkpoint.nextObjectID && mine.contains($0) }
        }
    }

    /// Leaked cycles made only of this scope's objects.
    var leakedCycles: [Cycle] { cycles.filter(\.leaked) }

    /// Bare type names of a cycle's members, sorted.
    func memberTypes(_ cycle: Cycle) -> [String] {
        cycle.objects.compactMap { snapshot.object($0) }.map { bareName($0.type) }.sorted()
    }

    /// Whether nothing of the scope is alive.
    var nothingAlive: Bool { alive.isEmpty }
}

/// `MapSink<Int, AnonymousObserver<Int>>` → `MapSink`.
func bareName(_ type: String) -> String {
    String(type.prefix { $0 != "<" })
}

/// Serialises the tests of this target that count live objects: a snapshot retains every live
/// object for a moment, so a snapshot taken by one test can make another test's objects look
/// alive (and their retain counts unexplained).
let snapshotLock = Mutex<Void>(())

/// Runs `body` in a new leak scope and its own stack frame, then snapshots what it left alive.
///
/// Snapshots are retried until two agree on what is alive, in case a snapshot taken by another
/// test target running in parallel held an object for a moment.
@inline(never)
func lifecycle(_ body: () -> Void) -> Outcome {
    snapshotLock.withLock { _ in
        let scope = LeakScope.run { runInFrame(body) }.scope
        _ = settledLiveObjects(in: scope)
        var snapshot = LeakGraph.snapshot()
        for _ in 0..<5 {
            let again = LeakGraph.snapshot()
            let before = snapshot.objects.filter { $0.scope == scope.id }.map { ($0.id, $0.strongRetainCount) }
            let after = again.objects.filter { $0.scope == scope.id }.map { ($0.id, $0.strongRetainCount) }
            snapshot = again
            if before.elementsEqual(after, by: { $0 == $1 }) { break }
            usleep(2_000)
        }
        return Outcome(scope: scope, snapshot: snapshot, report: LeakDetector.analyze(snapshot))
    }
}

/// Like ``lifecycle(_:)`` for a body that must leave a leaked cycle: re-runs it (up to 4 times
/// in all) while no leaked cycle shows. A leak cannot change, but a reference another suite's
/// thread holds for a moment (seen under the thread sanitizer, where everything is slow) can
/// make one look retained; a fresh run settles it, and a real regression fails every run.
@inline(never)
func leakingLifecycle(_ body: () -> Void) -> Outcome {
    var outcome = lifecycle(body)
    for _ in 0..<3 where outcome.leakedCycles.isEmpty { outcome = lifecycle(body) }
    return outcome
}

/// Like ``lifecycle(_:)``, re-running `body` (up to 5 times) while an object outside the scope
/// appears to capture one of the scope's objects.
///
/// Such an edge is a false positive of conservative closure scanning: a stale word in another
/// closure context (for example the unused tail of its malloc block) that happens to equal the
/// address of a new object. It also makes the snapshot downgrade the genuine capture to
/// `unknown`. A fresh run allocates at other addresses. (Reported as a core issue.)
@inline(never)
func lifecycleIgnoringForeignCaptures(_ body: () -> Void) -> Outcome {
    var outcome = lifecycle(body)
    for _ in 0..<4 {
        let mine = Set(outcome.alive.map(\.id))
        // Under the thread sanitizer a leak can also look retained for a moment (see
        // `leakingLifecycle`); every caller of this function expects one.
        if outcome.leakedCycles.isEmpty {
            outcome = lifecycle(body)
            continue
        }
        let foreign = outcome.snapshot.edges.contains { edge in
            edge.origin == .captured && mine.contains(edge.to) && !mine.contains(edge.from)
        }
        if !foreign { break }
        outcome = lifecycle(body)
    }
    return outcome
}

/// The objects of `scope` still alive (taken under the snapshot lock).
func liveObjects(in scope: LeakScope) -> [ObjectInfo] {
    snapshotLock.withLock { _ in settledLiveObjects(in: scope) }
}

/// What `scope` left alive, waiting (up to 300 ms) while objects are still going away: a
/// snapshot taken by a test in another target may hold them for a moment, and they are freed
/// when it lets go.
func settledLiveObjects(in scope: LeakScope) -> [ObjectInfo] {
    var alive = LeakGraph.liveObjects(in: scope, options: .declaredOnly)
    for _ in 0..<60 where !alive.isEmpty {
        usleep(5_000)
        let again = LeakGraph.liveObjects(in: scope, options: .declaredOnly)
        if again.isEmpty { return again }
        alive = again
    }
    return alive
}

@inline(never)
func runInFrame(_ body: () -> Void) { body() }

/// Runs the four standard lifecycle endings of an operator and returns what each left alive.
///
/// - `make` builds the operator over the given source subject and subscribes `observer`,
///   returning the subscription, which is held (not dropped) until after the ending.
struct LifecycleEndings {
    var completed: Outcome
    var errored: Outcome
    var disposed: Outcome
    var never: Outcome
}

@inline(never)
func lifecycleEndings(_ make: @escaping (PublishSubject<Int>) -> Disposable) -> LifecycleEndings {
    let completed = lifecycle {
        let subject = PublishSubject<Int>()
        let subscription = make(subject)
        subject.onNext(1)
        subject.onCompleted()
        withExtendedLifetime(subscription) {}
    }
    let errored = lifecycle {
        let subject = PublishSubject<Int>()
        let subscription = make(subject)
        subject.onNext(1)
        subject.onError(TestError())
        withExtendedLifetime(subscription) {}
    }
    let disposed = lifecycle {
        let subject = PublishSubject<Int>()
        let subscription = make(subject)
        subject.onNext(1)
        subscription.dispose()
    }
    let never = leakingLifecycle {
        let subject = PublishSubject<Int>()
        _ = make(subject)
        subject.onNext(1)
    }
    return LifecycleEndings(completed: completed, errored: errored, disposed: disposed, never: never)
}

/// Asserts the standard lifecycle verdict: complete, error and dispose leave nothing alive;
/// a dropped, never-ending subscription is a leaked cycle through a `SinkDisposer`.
func expectStandardLifecycle(
    _ endings: LifecycleEndings, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(endings.completed.aliveTypes == [], "after completion", sourceLocation: sourceLocation)
    #expect(endings.errored.aliveTypes == [], "after error", sourceLocation: sourceLocation)
    #expect(endings.disposed.aliveTypes == [], "after dispose", sourceLocation: sourceLocation)
    let leaked = endings.never.leakedCycles
    #expect(
        leaked.count == 1, "never: \(endings.never.aliveTypes)\n\(endings.never.dump)", sourceLocation: sourceLocation)
    if let cycle = leaked.first {
        let members = endings.never.memberTypes(cycle)
        #expect(members.contains("SinkDisposer"), "\(members)", sourceLocation: sourceLocation)
        #expect(members.contains("PublishSubject"), "\(members)", sourceLocation: sourceLocation)
        #expect(members.contains("SubjectSubscription"), "\(members)", sourceLocation: sourceLocation)
    }
}

extension Outcome {
    /// The scope's objects, edges and cycles as text (for failure messages).
    var dump: String {
        let ids = Set(alive.map(\.id))
        var lines = alive.map { "#\($0.id) \($0.type) rc=\($0.strongRetainCount ?? -1) \($0.state)" }
        for edge in snapshot.edges where ids.contains(edge.from) || ids.contains(edge.to) {
            lines.append("#\(edge.from) —\(edge.label) [\(edge.kind) \(edge.origin) x\(edge.count)]→ #\(edge.to)")
        }
        for cycle in cycles {
            lines.append("cycle leaked=\(cycle.leaked) \(cycle.loopDescription) \(cycle.unexplainedHolders)")
        }
        return lines.joined(separator: "\n")
    }
}
