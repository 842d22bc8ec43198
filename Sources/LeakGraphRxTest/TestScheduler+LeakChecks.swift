import Foundation
import LeakGraphTesting
import Testing
import XCTest

extension TestScheduler {
    /// Fails the current XCTest test when the last `start` run left tracked objects alive, with
    /// the leak trace in the message (or when there was no run to check).
    ///
    /// ```swift
    /// let res = scheduler.start { xs.map { $0 + 1 } }
    /// XCTAssertEqual(res.events, [.next(210, 3)])
    /// scheduler.assertNoLeaks()
    /// ```
    public func assertNoLeaks(
        options: LeakCheckOptions = LeakCheckOptions(), file: StaticString = #filePath, line: UInt = #line
    ) {
        guard hasStartRun else {
            return XCTFail("TestScheduler.assertNoLeaks: no start(…) run to check", file: file, line: line)
        }
        let outcome = leakCheck(options: options, name: Self.checkName(file: "\(file)", line: Int(line)))
        for note in outcome.notes {
            FileHandle.standardError.write(Data("leakgraph: warning: \(note)\n".utf8))
        }
        if let findings = outcome.findings {
            XCTFail(findings.message, file: file, line: line)
        }
    }

    /// Records a Swift Testing issue when the last `start` run left tracked objects alive (or
    /// when there was no run to check).
    ///
    /// ```swift
    /// @Test func mapping() {
    ///     let res = scheduler.start { xs.map { $0 + 1 } }
    ///     #expect(res.events == [.next(210, 3)])
    ///     scheduler.expectNoLeaks()
    /// }
    /// ```
    public func expectNoLeaks(
        options: LeakCheckOptions = LeakCheckOptions(), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard hasStartRun else {
            Issue.record("TestScheduler.expectNoLeaks: no start(…) run to check", sourceLocation: sourceLocation)
            return
        }
        let outcome = leakCheck(
            options: options, name: Self.checkName(file: sourceLocation.fileID, line: sourceLocation.line))
        for note in outcome.notes {
            FileHandle.standardError.write(Data("leakgraph: warning: \(note)\n".utf8))
        }
        if let findings = outcome.findings {
            Issue.record(Comment(rawValue: findings.message), sourceLocation: sourceLocation)
        }
    }
}

extension TestScheduler {
    /// `TestScheduler.start.MapTests.swift-42`: a check's artifacts are named after the line that
    /// asked for it, so two failing tests never write (and point to) the same files.
    static func checkName(file: String, line: Int) -> String {
        "TestScheduler.start.\(file.split(separator: "/").last.map(String.init) ?? file)-\(line)"
    }
}

/// A Swift Testing trait that checks, after every `TestScheduler.start` run in the test, that the
/// run released everything it created.
///
/// ```swift
/// @Suite(.checksTestSchedulerLeaks) struct MapTests {
///     @Test func mapping() { … scheduler.start { xs.map { $0 + 1 } } … }   // checked
/// }
/// ```
public struct TestSchedulerLeakCheckTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test in a suite.
    public var isRecursive: Bool { true }

    @TaskLocal static var checkedTestLocation: SourceLocation?

    /// Runs the test with the check on.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.$checkedTestLocation.withValue(test.sourceLocation) { try await function() }
    }
}

extension Trait where Self == TestSchedulerLeakCheckTrait {
    /// Checks every `TestScheduler.start` run of the test for leaks.
    public static var checksTestSchedulerLeaks: Self { Self() }
}
