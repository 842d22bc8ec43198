import Testing

@testable import LeakGraph

/// Captures of structs the runtime cannot make metadata for (the compiler emits no metadata
/// accessor for a private struct nothing asks the metadata of): laid out from their field
/// descriptors, not left unread. The concurrency library's `Task.sleep` and Swift Testing's
/// runner capture such structs in every test process.
@Suite(
    "Captures of structs without metadata",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct UnmadeMetadataCaptureTests {
    static let unresolved = "a capture of a type the runtime could not resolve"

    @Test("a sleeping task's closure and the test runner's closures have every capture read")
    func sleepAndRunnerCapturesAreRead() async throws {
        let sleeper = Task { try? await Task.sleep(for: .seconds(30)) }
        defer { sleeper.cancel() }
        // Until it sleeps (the cooperative pool may be busy with other suites).
        try await Task.sleep(for: .milliseconds(300))
        let (snapshot, _) = LeakGraph.findLeaksToDescribe()
        let unresolvedObjects = Set(snapshot.unreadReferences.filter { $0.why == Self.unresolved }.map(\.object))
        let sleepContexts = snapshot.objects.filter { object in
            snapshot.stack(object.stack)?.frames.first?.contains("_sleep") == true
        }
        #expect(!sleepContexts.isEmpty, "no object allocated by Task.sleep was recorded")
        for context in sleepContexts {
            #expect(!unresolvedObjects.contains(context.id), "\(context.type) allocated by Task.sleep")
        }
        let runnerContexts = snapshot.objects.filter { $0.type.contains("Runner.") }
        #expect(!runnerContexts.isEmpty, "no closure context of Swift Testing's runner was recorded")
        for context in runnerContexts {
            #expect(!unresolvedObjects.contains(context.id), "\(context.type)")
        }
    }
}
