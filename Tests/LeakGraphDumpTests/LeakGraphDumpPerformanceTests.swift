import Foundation
import LeakGraph
import LeakGraphDump
import LeakGraphTestSupport
import Testing

/// Opt-in (`LEAKGRAPH_PERF=1 swift test --filter LeakGraphDumpPerformance`, best with
/// `-c release`): writes a 1,000,000-object, 2,000,000-edge dump to /tmp, loads it and prints the
/// time and peak memory. Not an assertion on time: machines differ too much.
@Suite(
    "LeakGraphDump performance",
    .enabled(if: ProcessInfo.processInfo.environment["LEAKGRAPH_PERF"] == "1", "a benchmark: LEAKGRAPH_PERF=1 runs it"))
struct LeakGraphDumpPerformanceTests {
    @Test("a 1,000,000-object, 2,000,000-edge dump loads; prints time and peak memory")
    func millionObjects() throws {
        let path = "/tmp/leakgraph-perf-\(getpid()).json"
        defer { unlink(path) }
        let size = try writeMillionObjectDump(to: path)
        let before = peakResidentMegabytes()
        let start = ContinuousClock.now
        let dump = try LeakGraphDump(contentsOf: path)
        let elapsed = ContinuousClock.now - start
        let seconds = String(
            format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        print(
            "LeakGraphDump: \(size / 1_000_000) MB, \(dump.snapshot.objects.count) objects, \(dump.snapshot.edges.count) edges, "
                + "\(dump.cycles.count) cycles loaded in \(seconds) s; peak RSS \(peakResidentMegabytes()) MB (\(before) MB before loading)"
        )
        #expect(dump.snapshot.objects.count == 1_000_000)
        #expect(dump.snapshot.edges.count == 2_000_000)
        #expect(dump.leakedObjectIDs.count == 1_000_000)
    }

    /// VmHWM from /proc/self/status: the process's peak resident set, in MB.
    private func peakResidentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let field = line.split(whereSeparator: \.isWhitespace).dropFirst().first, let kilobytes = Int(field)
        else { return -1 }
        return kilobytes / 1024
    }

    /// Writes leaked `Parent ⇄ Child` pairs with a weak chain through all objects, in chunks so
    /// that the writer's memory does not count against the reader's peak.
    private func writeMillionObjectDump(to path: String) throws -> Int {
        let count = 1_000_000
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw DumpError(path: path, problem: "cannot be created") }
        defer { try? file.close() }
        var size = 0
        var text = ""
        func flush(force: Bool = false) throws {
            guard force || text.utf8.count > 1 << 22 else { return }
            size += text.utf8.count
            try file.write(contentsOf: Data(text.utf8))
            text = ""
        }
        text += "{\"format\":\"leakgraph\",\"version\":1,\"pid\":1,\"time\":1700000000.123,\n\"objects\":["
        for id in 1...count {
            if id > 1 { text += "," }
            let type = id % 2 == 1 ? "Parent" : "Child<Int>"
            let label = id % 10 == 0 ? "\"vm \\\"\(id)\\\"\"" : "null"
            text +=
                "\n{\"id\":\(id),\"type\":\"\(type)\",\"label\":\(label),\"strongRetainCount\":1,\"stack\":\(id % 100),"
            text += "\"time\":1700000000.\(100 + id % 900),\"state\":\"active\",\"scope\":0,\"leaked\":true}"
            try flush()
        }
        text += "],\n\"edges\":["
        for id in stride(from: 1, to: count, by: 2) {
            if id > 1 { text += "," }
            text +=
                "\n{\"from\":\(id),\"to\":\(id + 1),\"kind\":\"strong\",\"label\":\"child\",\"origin\":\"declared\","
            text += "\"count\":1,\"site\":null,\"closure\":null},"
            text +=
                "\n{\"from\":\(id + 1),\"to\":\(id),\"kind\":\"strong\",\"label\":\"parent\",\"origin\":\"reflected\","
            text += "\"count\":1,\"site\":\(id % 100),\"closure\":null}"
            try flush()
        }
        for id in 1...count {
            text +=
                ",\n{\"from\":\(id),\"to\":\(id % count + 1),\"kind\":\"weak\",\"label\":\"next\",\"origin\":\"captured\","
            text += "\"count\":1,\"site\":null,\"closure\":\"closure #1 in App.bind()\"}"
            try flush()
        }
        text += "],\n\"stacks\":["
        for id in 0..<100 {
            if id > 0 { text += "," }
            text +=
                "\n{\"id\":\(id),\"frames\":[\"make\(id)() at Sources/App/File\(id).swift:\(id)\",\"main at main.swift:1\"],"
            text += "\"userFrame\":0}"
        }
        text += "],\n\"cycles\":["
        for id in stride(from: 1, to: count, by: 2) {
            if id > 1 { text += "," }
            text += "\n{\"objects\":[\(id),\(id + 1)],\"leaked\":true,"
            text += "\"signature\":\"Child<Int> \\u2014parent\\u2192 Parent \\u2014child\\u2192 Child<Int>\","
            text +=
                "\"path\":[{\"from\":\(id + 1),\"to\":\(id),\"label\":\"parent\"},{\"from\":\(id),\"to\":\(id + 1),\"label\":\"child\"}],"
            text += "\"loop\":\"Child<Int> —parent→ Parent —child→ Child<Int>\",\"unexplainedHolders\":[]}"
            try flush()
        }
        text += "],\n\"unknownOwners\":[]}\n"
        try flush(force: true)
        return size
    }
}

@Suite("Unread memory and possible leaks in the dump")
struct UnreadRoundTripTests {
    @Test("objects' unread records, possible leaks and reachesUnread survive a write and a read")
    func roundTrip() throws {
        var snapshot = GraphSnapshot(
            objects: [
                ObjectInfo(id: 1, type: "A", strongRetainCount: 2), ObjectInfo(id: 2, type: "B", strongRetainCount: 1),
                ObjectInfo(id: 3, type: "Service", strongRetainCount: 1),
            ],
            edges: [EdgeInfo(from: 1, to: 2, label: "b"), EdgeInfo(from: 2, to: 1, label: "a")])
        snapshot.unreadReferences = [
            UnreadReferenceInfo(
                object: 2, place: "action", why: "a capture of a parameter pack (`repeat each T`), not read"),
            UnreadReferenceInfo(object: 3, place: "fields", why: "state: a noncopyable value"),
        ]
        let report = LeakDetector.analyze(snapshot)
        #expect(report.possibleLeaks.count == 1)
        let json = JSONExporter.render(snapshot, report: report)
        #expect(json.contains(#""unread":[{"in":"action","why":"#))
        let dump = try LeakGraphDump(data: Data(json.utf8), path: "unread.json")
        #expect(dump.snapshot.unreadReferences == snapshot.unreadReferences)
        #expect(dump.possibleLeaks == report.possibleLeaks)
        #expect(dump.report.unknownOwners.first { $0.object == 3 }?.reachesUnreadMemory == true)
    }

    @Test("a dump without unread records has no unread fields and no possibleLeaks section")
    func nothingUnreadWritesNothing() throws {
        let snapshot = GraphSnapshot(objects: [ObjectInfo(id: 1, type: "A", strongRetainCount: 1)], edges: [])
        let json = JSONExporter.render(snapshot)
        #expect(!json.contains("unread"))
        #expect(!json.contains("possibleLeaks"))
        #expect(try LeakGraphDump(data: Data(json.utf8), path: "plain.json").possibleLeaks.isEmpty)
    }
}

@Suite("Outside holders in the dump")
struct OutsideHoldersRoundTripTests {
    @Test("an object's outside holders survive a write and a read")
    func roundTrip() throws {
        var timer = ObjectInfo(id: 1, type: "PeriodicWork", strongRetainCount: 1)
        timer.outsideHolders = ["a Dispatch timer (every 1 s, on main)"]
        let json = JSONExporter.render(GraphSnapshot(objects: [timer], edges: []))
        let dump = try LeakGraphDump(data: Data(json.utf8), path: "outside.json")
        #expect(dump.snapshot.objects.first?.outsideHolders == ["a Dispatch timer (every 1 s, on main)"])
    }
}
