import Foundation
import LeakGraph
import Testing
import XCTest

/// Fails the current Swift Testing test when tracked objects `body` allocates grow in number on
/// every one of `iterations` runs after `warmUp` runs, naming the growing types, where they are
/// allocated and who holds the newest one.
///
/// ```swift
/// @Test func openingTheScreenTwiceLeavesNothingBehind() {
///     expectNoGrowth { openAndCloseScreen() }
/// }
/// ```
public func expectNoGrowth(
    iterations: Int = 5, warmUp: Int = 1, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) rethrows {
    let report = try GrowthCheck.run(iterations: iterations, warmUp: warmUp, body)
    record(report, at: sourceLocation)
}

/// ``expectNoGrowth(iterations:warmUp:sourceLocation:_:)`` for an async scenario.
public func expectNoGrowth(
    iterations: Int = 5, warmUp: Int = 1, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async rethrows {
    let report = try await GrowthCheck.run(iterations: iterations, warmUp: warmUp, body)
    record(report, at: sourceLocation)
}

private func record(_ report: GrowthReport, at location: SourceLocation) {
    for note in report.notes { FileHandle.standardError.write(Data("leakgraph: warning: \(note)\n".utf8)) }
    if report.hasGrowth { Issue.record(Comment(rawValue: report.message), sourceLocation: location) }
}

/// Fails the current XCTest test when tracked objects `body` allocates grow in number on every
/// iteration after the warm-up (see `expectNoGrowth`).
public func assertNoGrowth(
    iterations: Int = 5, warmUp: Int = 1, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Void
) rethrows {
    let report = try GrowthCheck.run(iterations: iterations, warmUp: warmUp, body)
    report.notes.forEach(printNote)
    if report.hasGrowth { XCTFail(report.message, file: file, line: line) }
}

/// Records a Swift Testing issue unless exactly `count` tracked instances of `type` (or its
/// subclasses) are alive, listing the live ones with where they were allocated.
///
/// ```swift
/// expectLive(ViewModel.self, count: 1)
/// ```
public func expectLive<T: AnyObject>(_ type: T.Type, count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let live = LeakGraph.liveCount(of: type)
    guard live != count else { return }
    Issue.record(Comment(rawValue: liveMessage(type, expected: count, live: live)), sourceLocation: sourceLocation)
}

/// Fails the current XCTest test unless exactly `count` tracked instances of `type` are alive.
public func assertLive<T: AnyObject>(
    _ type: T.Type, count: Int, file: StaticString = #filePath, line: UInt = #line
) {
    let live = LeakGraph.liveCount(of: type)
    guard live != count else { return }
    XCTFail(liveMessage(type, expected: count, live: live), file: file, line: line)
}

private func liveMessage<T: AnyObject>(_ type: T.Type, expected: Int, live: Int) -> String {
    var message = "expected \(expected) live \(String(reflecting: type)), found \(live)"
    if !LeakGraph.isEnabled { return message + " (" + LeakCheck.notCheckedMessage + ")" }
    let ids = Set(LeakGraph.liveObjects(of: type).map(\.id))
    let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot(options: .declaredOnly))
    for object in snapshot.objects.filter({ ids.contains($0.id) }).prefix(20) {
        message += "\n  \(object.displayName)"
        if let site = snapshot.stack(object.stack)?.userFrameDescription { message += " allocated at \(site)" }
    }
    return message
}

/// Records an issue for every task the graph can see still alive (``LeakGraph/liveTasks()``): for
/// tests that must end with nothing in flight, as TCA's `TestStore` requires of effects.
///
/// ```swift
/// @Test func stopsListening() {
///     let model = Listener()
///     model.start()
///     model.stop()
///     expectNoRunningTasks()
/// }
/// ```
///
/// Only tasks held by a `Task` handle or a pending continuation of an object in the graph are
/// seen (tracked objects; every object with `LEAKGRAPH_TRACK=all`).
public func expectNoRunningTasks(sourceLocation: SourceLocation = #_sourceLocation) {
    guard let message = runningTasksMessage() else { return }
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// Fails the current XCTest test for every task the graph can see still alive (see
/// ``expectNoRunningTasks(sourceLocation:)``).
public func assertNoRunningTasks(file: StaticString = #filePath, line: UInt = #line) {
    guard let message = runningTasksMessage() else { return }
    XCTFail(message, file: file, line: line)
}

private func runningTasksMessage() -> String? {
    if !LeakGraph.isEnabled { return "no task checked: " + LeakCheck.notCheckedMessage }
    let tasks = LeakGraph.liveTasks()
    guard !tasks.isEmpty else { return nil }
    return "\(tasks.count) task(s) still alive:\n"
        + tasks.prefix(20).map { "  " + $0.description }.joined(separator: "\n")
}
