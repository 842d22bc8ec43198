import Foundation
import Testing

@testable import LeakGraph

/// Held by a global, as a cache or a singleton holds what it keeps.
nonisolated(unsafe) var objectKeptByAGlobalForTesting: AnyObject?

private final class GlobalHeldParent: TrackedObject {
    var child: GlobalHeldChild?
}

private final class GlobalHeldChild: TrackedObject {
    var parent: GlobalHeldParent?
}

@Suite("Globals named as outside holders")
struct GlobalHoldersTests {
    @Test(
        "a retained cycle held by a global names that global",
        .enabled(if: ExternalSymbolizer.find("llvm-symbolizer") != nil, "needs llvm-symbolizer"))
    func retainedCycleNamesItsGlobal() throws {
        let parent = GlobalHeldParent(label: "held by a global")
        let child = GlobalHeldChild(label: "held by a global")
        parent.child = child
        child.parent = parent
        objectKeptByAGlobalForTesting = parent
        defer {
            parent.child = nil
            objectKeptByAGlobalForTesting = nil
        }
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        let id = try #require(
            snapshot.objects.first { $0.label == "held by a global" && $0.type.contains("GlobalHeldParent") }?.id)
        let cycle = try #require(report.cycles.first { $0.objects.contains(id) })
        #expect(!cycle.leaked)
        let names = snapshot.object(id)?.heldByGlobals ?? []
        #expect(names.contains { $0.contains("objectKeptByAGlobalForTesting") }, "\(names)")
        #expect(
            LeakTrace.describe(snapshot, report: report, objects: Set(cycle.objects)).contains(
                "held by global objectKeptByAGlobalForTesting"))
    }

    @Test("nothing is named for an object no global holds")
    func noGlobalNoName() {
        // Alive while it is looked for: a freed object's address may be anything's by then.
        let object = NSObject()
        withExtendedLifetime(object) {
            #expect(
                GlobalHolders.names(holding: [UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())]).isEmpty)
        }
    }
}
