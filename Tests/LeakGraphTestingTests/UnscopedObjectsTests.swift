import Foundation
import LeakGraph
import Testing

@testable import LeakGraphTesting

/// Leaks a Screen ⇄ Presenter cycle on a Dispatch queue (outside the calling task) and waits.
@inline(never)
func plantLeakOnAQueue() {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        plantLeak()
        done.signal()
    }
    done.wait()
}

/// Leaks the cycle in a detached task, which does not inherit the test's task-local scope.
func plantLeakInADetachedTask() async {
    await Task.detached { plantLeak() }.value
}

/// A type only ``UnscopedObjectsTests/offTaskObjectsAreMarked()`` allocates.
final class QueueNode: TrackedObject {
    var other: QueueNode?

    static func plantPair() {
        let a = QueueNode()
        let b = QueueNode()
        a.other = b
        b.other = a
    }
}

@Suite("Checks never pass vacuously")
struct UnscopedObjectsTests {
    @Test("objects allocated on a queue while a scope is open carry its off-task id, or the unattributed one")
    func offTaskObjectsAreMarked() {
        let (scope, _) = LeakScope.run {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                QueueNode.plantPair()
                done.signal()
            }
            done.wait()
        }
        let objects = LeakGraph.liveObjects(since: scope.checkpoint, options: .declaredOnly).filter {
            $0.type == "QueueNode"
        }
        #expect(objects.count == 2)
        for object in objects {
            #expect(
                object.scope == LeakScope.offTaskScopeID(for: scope.id) || object.scope == LeakScope.unattributedScopeID
            )
            #expect(object.scope != scope.id)
        }
        #expect(scope.endCheckpoint != nil)
    }

    @Test("with includingUnscopedObjects a leak made on a queue fails the test")
    func queueLeakFailsWhenIncluded() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20), includingUnscopedObjects: true)
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeakOnAQueue() }
        } matching: { issue in
            issue.severity == .error
                && issue.comments.map(\.rawValue).joined().contains("Presenter —screen→ Screen —presenter→ Presenter")
        }
    }

    @Test("with includingUnscopedObjects a leak made in Task.detached fails the test")
    func detachedLeakFailsWhenIncluded() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20), includingUnscopedObjects: true)
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { await plantLeakInADetachedTask() }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("Presenter —screen→ Screen —presenter→ Presenter")
        }
    }

    @Test("by default a leak made on a queue is reported as a warning naming the option, not ignored and not failed")
    func queueLeakIsAWarningByDefault() async throws {
        let (scope, _) = LeakScope.run { plantLeakOnAQueue() }
        let planted = LeakGraph.liveObjects(since: scope.checkpoint, options: .declaredOnly).filter {
            $0.id < scope.endCheckpoint!.nextObjectID && ($0.type == "Screen" || $0.type == "Presenter")
                && $0.scope != scope.id
        }
        #expect(planted.count >= 2)
        let outcome = await LeakCheck.run(
            scope: scope, name: "queueLeak", options: LeakCheckOptions(gracePeriod: .zero))
        #expect(outcome.findings == nil, "not blamed on the test")
        let note = outcome.notes.first { $0.contains("outside the task of queueLeak") }
        // Another check overlapping this one may have reported these objects first; either way
        // they were reported.
        // (or examined by one while the queue was still linking them: each object is looked at
        // once per process).
        let reportedElsewhere =
            LeakCheck.reportedUnattributed.withLock { reported in planted.allSatisfy { reported.contains($0.id) } }
            || LeakCheck.examinedUnattributed.withLock { examined in planted.allSatisfy { examined.contains($0.id) } }
        #expect(note != nil || reportedElsewhere)
        if let note { #expect(note.contains("includingUnscopedObjects: true")) }
    }

    @Test("the negative control: a planted leak is caught by the default check")
    func selfTestCatchesPlantedLeak() async {
        #expect(await LeakCheckSelfTest.catchesPlantedLeak())
        #expect(LeakCheckSelfTest.catchesPlantedLeakSynchronously())
        // And the planted objects are gone again: at once, or as soon as a snapshot another test
        // is taking in parallel lets go of its hold on them (a held object dies on release).
        var left = LeakGraph.snapshot(options: .declaredOnly).objects.filter { $0.label == "LeakCheckSelfTest" }
        let deadline = ContinuousClock.now + .seconds(10)
        while !left.isEmpty && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            left = LeakGraph.snapshot(options: .declaredOnly).objects.filter { $0.label == "LeakCheckSelfTest" }
        }
        #expect(left.isEmpty)
    }

    @Test("with LEAKGRAPH=off the negative control fails and the check says once that nothing was checked")
    func trackingOffIsSaid() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--testing-library", "swift-testing", "--filter", "UnscopedObjectsTests/childWithTrackingOff",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH"] = "off"
        environment["LEAKGRAPH_TEST_CHILD"] = "tracking-off"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.components(separatedBy: LeakCheck.notCheckedMessage).count - 1 == 1, "said once: \(text)")
        #expect(text.contains("self-test: false"), "\(text)")
    }

    /// Runs only as the child of ``trackingOffIsSaid()``: two checked regions and the self-test.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LEAKGRAPH_TEST_CHILD"] == "tracking-off",
            "the child process of another test"))
    func childWithTrackingOff() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .zero)
        let test = try #require(Test.current)
        try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeak() }
        try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeak() }
        print("self-test: \(await LeakCheckSelfTest.catchesPlantedLeak())")
    }
}

@Suite("Leak check artifacts")
struct LeakCheckArtifactsTests {
    @Test("an artifacts folder that cannot be written is said in the failure, not silently dropped")
    func unwritableArtifactsFolderIsSaid() async throws {
        let (scope, _) = LeakScope.run { plantLeak() }
        let options = LeakCheckOptions(gracePeriod: .zero, artifactsDirectory: "/dev/null/cannot-be-a-folder")
        let findings = try #require(await LeakCheck.run(scope: scope, name: "unwritable", options: options).findings)
        #expect(findings.artifacts.isEmpty)
        #expect(findings.message.contains("Graph not written: cannot write /dev/null/cannot-be-a-folder"))
        #expect(!findings.message.contains("\nGraph: "))
    }

    @Test("the self-test writes no files for its planted leak")
    func selfTestWritesNothing() async throws {
        let folder = NSTemporaryDirectory() + "/selftest-artifacts-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(await LeakCheckSelfTest.catchesPlantedLeak(options: LeakCheckOptions(artifactsDirectory: folder)))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}

@Suite("Parameterized cases' artifact names")
struct StableCaseKeyTests {
    /// The keys each argument got, to compare the cases with each other.
    static let keys = Locked<[Int: String]>([:])

    @Test("a case's key comes from its arguments: the same every time, different per argument", arguments: [1, 2, 3])
    func keyPerArgument(value: Int) throws {
        let testCase = try #require(Test.Case.current)
        let key = try #require(LeakDetectionTrait.stableCaseKey(testCase), "the case's argument ids are found")
        #expect(LeakDetectionTrait.stableCaseKey(testCase) == key)
        let others = Self.keys.withLock { keys in
            keys[value] = key
            return keys.filter { $0.key != value }.map(\.value)
        }
        #expect(!others.contains(key))
    }
}
