import Foundation
import LeakGraph
import XCTest

/// Fails the current XCTest test when tracked objects allocated in `body` are still alive after
/// it (once `gracePeriod` has passed), with a leak trace and a dot file in the message.
///
/// ```swift
/// func testBinding() {
///     assertNoLeaks {
///         let model = ViewModel()
///         model.bind()
///     }
/// }
/// ```
public func assertNoLeaks<R>(
    _ name: String? = nil, options: LeakCheckOptions = LeakCheckOptions(), file: StaticString = #filePath,
    line: UInt = #line, _ body: () throws -> R
) rethrows -> R {
    let (scope, result) = try LeakScope.run(body)
    let label = name ?? "assertNoLeaks at \(String(describing: file).split(separator: "/").last ?? ""):\(line)"
    let outcome = LeakCheck.runSynchronously(scope: scope, name: label, options: options)
    outcome.notes.forEach(printNote)
    if let findings = outcome.findings {
        XCTFail(findings.message, file: file, line: line)
    }
    return result
}

/// XCTest has no warnings: notes (nothing checked, unattributed leaks) go to standard error.
func printNote(_ note: String) {
    FileHandle.standardError.write(Data("leakgraph: warning: \(note)\n".utf8))
}

/// An `XCTestCase` whose every test fails when tracked objects it allocated are still alive
/// after it (after `tearDown`, once the grace period has passed).
///
/// ```swift
/// final class ViewModelTests: LeakCheckingTestCase {
///     func testBinding() { … }   // checked automatically
/// }
/// ```
open class LeakCheckingTestCase: XCTestCase {
    /// Options for the automatic check; override to ignore types or wait longer.
    open var leakCheckOptions: LeakCheckOptions { LeakCheckOptions() }

    /// Runs the test (setUp, body, tearDown) inside a leak scope, then checks it.
    open override func invokeTest() {
        let (scope, _) = LeakScope.run { super.invokeTest() }
        let outcome = LeakCheck.runSynchronously(
            scope: scope, name: LeakCheck.fileName(name), options: leakCheckOptions)
        outcome.notes.forEach(printNote)
        if let findings = outcome.findings {
            recordLeakFailure(findings.message, at: findings.userLocation)
        }
    }

    /// Records the failure at `location` — the line of the user's code that allocated a leaked
    /// object, preferring a test file — so that it shows in the editor there, not inside
    /// LeakGraph. Overridable so tests of LeakGraph itself can expect it.
    open func recordLeakFailure(_ message: String, at location: SourceLine?) {
        if let location {
            recordFailure(withDescription: message, inFile: location.file, atLine: location.line, expected: true)
        } else {
            recordLeakFailure(message)
        }
    }

    /// Records the failure where no user line is known.
    open func recordLeakFailure(_ message: String) {
        XCTFail(message)
    }
}
