import Foundation
import LeakGraph
import LeakGraphDump
import Testing

final class DumpedBystander: TrackedObject {}

final class DumpedPeer: TrackedObject {
    @StrongRef var peer: DumpedPeer?
}

final class DumpedHolder: TrackedObject {
    @StrongRef var held: DumpedPeer?
}

@Suite("Dump contents")
struct DumpContentsTests {
    private func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "leakgraph-contents-\(UUID().uuidString)"
    }

    private func types(_ dump: LeakGraphDump, _ name: String) -> Int {
        dump.snapshot.objects.filter { $0.type == name }.count
    }

    @Test("by default a dump holds the cycles and what they hold, and counts every live object by type")
    func cyclesOnlyByDefault() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bystanders = (0..<25).map { _ in DumpedBystander() }
        let holder = makeRetainedPairWithHolder()
        makeLeakedDumpedPair()
        let (files, report) = try LeakGraph.writeDump(to: directory, name: "cycles", contents: .cycles)
        let dump = try LeakGraphDump(contentsOf: files.json)
        #expect(types(dump, "DumpedBystander") == 0)
        // Both pairs, and the retained pair's known outside holder.
        #expect(types(dump, "DumpedPeer") >= 4)
        #expect(types(dump, "DumpedHolder") >= 1)
        #expect(dump.cycles.count == report.cycles.count)
        let summary = try #require(dump.summary)
        #expect(summary.contents == "cycles")
        #expect(!summary.isComplete)
        #expect(summary.writtenObjects == dump.snapshot.objects.count)
        #expect(summary.writtenEdges == dump.snapshot.edges.count)
        #expect(summary.types.first { $0.type == "DumpedBystander" }.map(\.count) ?? 0 >= 25)
        #expect(summary.liveObjects >= summary.writtenObjects + 25)
        withExtendedLifetime((bystanders, holder)) {}
    }

    @Test("a cycles dump writes, and symbolizes, only the stacks of what it writes")
    func cyclesDumpWritesOnlyItsStacks() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Bystanders made at many places: their stacks are the process's, not the dump's.
        let bystanders = makeBystandersAtManyPlaces()
        makeLeakedDumpedPair()
        let (files, _) = try LeakGraph.writeDump(to: directory, name: "stacks", contents: .cycles)
        let dump = try LeakGraphDump(contentsOf: files.json)
        let named = Set(dump.snapshot.objects.compactMap(\.stack) + dump.snapshot.edges.compactMap(\.site))
        #expect(!named.isEmpty)
        #expect(Set(dump.snapshot.stacks.map(\.id)) == named, "every stack written is named by what is written")
        for id in named { #expect(dump.snapshot.stack(id)?.frames.isEmpty == false, "stack \(id) symbolized") }
        let sites = dump.snapshot.objects.filter { $0.type == "DumpedPeer" }.compactMap {
            dump.snapshot.stack($0.stack)?.userFrameDescription
        }
        #expect(sites.contains { $0.contains("makeLeakedDumpedPair") }, "\(sites)")
        withExtendedLifetime(bystanders) {}
    }

    @Test("with contents full a dump holds every live object")
    func fullHoldsEverything() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bystanders = (0..<25).map { _ in DumpedBystander() }
        let (files, _) = try LeakGraph.writeDump(to: directory, name: "full", contents: .full)
        let dump = try LeakGraphDump(contentsOf: files.json)
        #expect(types(dump, "DumpedBystander") >= 25)
        let summary = try #require(dump.summary)
        #expect(summary.contents == "full")
        #expect(summary.isComplete)
        #expect(summary.writtenObjects == summary.liveObjects)
        withExtendedLifetime(bystanders) {}
    }
}

/// Bystanders from six places, so that the process has stacks the dump does not write.
private func makeBystandersAtManyPlaces() -> [DumpedBystander] {
    [DumpedBystander(), DumpedBystander(), DumpedBystander()] + [DumpedBystander()] + [DumpedBystander()]
        + [DumpedBystander()]
}

@inline(never)
private func makeLeakedDumpedPair() {
    let first = DumpedPeer()
    let second = DumpedPeer()
    first.peer = second
    second.peer = first
}

@inline(never)
private func makeRetainedPairWithHolder() -> DumpedHolder {
    let first = DumpedPeer()
    let second = DumpedPeer()
    first.peer = second
    second.peer = first
    let holder = DumpedHolder()
    holder.held = first
    return holder
}
