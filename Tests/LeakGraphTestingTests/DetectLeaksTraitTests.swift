import Foundation
import LeakGraph
import LeakGraphTesting
import Testing

@Suite("detectLeaks trait")
struct DetectLeaksTraitTests {
    @Test("a clean test passes the check", .detectLeaks)
    func cleanTestPasses() {
        noLeak()
    }

    @Test("a planted leak fails the test with the cycle, its sites and the dot file")
    func plantedLeakFails() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20))
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeak() }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("Leaked cycle (2 object(s)): Presenter —screen→ Screen —presenter→ Presenter")
                && text.contains("Graph: ") && text.contains(".dot") && text.contains("Fix:")
        }
    }

    @Test("a leaked Rx subscription fails with the Sink ⇄ SinkDisposer path, the fix and the dot file, which exists")
    func leakedSubscriptionFails() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20))
        let test = try #require(Test.current)
        let message = Locked("")
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { forgetSubscription() }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            message.withLock { $0 = text }
            return text.contains("Leaked cycle") && text.contains("—cancel→ SinkDisposer —sink→")
                && text.contains(".disposed(by: bag)") && text.contains("Graph: ")
        }
        let text = message.withLock { $0 }
        let dotPath = text.components(separatedBy: "Graph: ").last?.components(separatedBy: " ").first ?? ""
        #expect(dotPath.hasSuffix(".dot"))
        #expect(FileManager.default.fileExists(atPath: dotPath), "\(dotPath)")
    }

    @Test("a subscription left in a long-lived bag to a subject nothing holds fails as one that can never finish")
    func subscriptionThatCanNeverFinish() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20))
        let test = try #require(Test.current)
        let holder = LongLivedBag()
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                subscribeToDroppedSubject(keepingIn: holder)
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("Can never finish (active, but nothing outside can send them an event")
                && text.contains("MapSink<Int") && !text.contains("Never finished")
        }
        holder.release()
    }

    @Test("the same subscription disposed by a released bag passes", .detectLeaks)
    func disposedSubscriptionPasses() {
        disposeSubscription()
    }

    @Test("ignored types are not reported")
    func ignoredTypes() async throws {
        let trait = LeakDetectionTrait.detectLeaks(ignoringTypes: ["Screen", "Presenter"], gracePeriod: .zero)
        let test = try #require(Test.current)
        try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeak() }
    }

    @Test("objects freed during the grace period do not fail the test")
    func gracePeriod() async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .seconds(10))
        let test = try #require(Test.current)
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            nonisolated(unsafe) let screen = Screen()
            // Released on a Dispatch thread: the test's own cooperative pool may be busy with
            // other suites' synchronous work.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { withExtendedLifetime(screen) {} }
        }
    }

    @Test("tests running in parallel are blamed only for their own objects", arguments: 0..<8)
    func parallelAttribution(index: Int) async throws {
        let trait = LeakDetectionTrait.detectLeaks(gracePeriod: .milliseconds(20))
        let test = try #require(Test.current)
        if index % 2 == 0 {
            try await withKnownIssue {
                try await trait.provideScope(for: test, testCase: Test.Case.current) { plantLeak() }
            } matching: { issue in
                issue.comments.map(\.rawValue).joined().contains("2 tracked object(s) allocated during")
            }
        } else {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                noLeak()
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}
