import Foundation
import LeakGraph
import LeakGraphTestSupport
import Testing

@testable import LeakGraphDump

/// Big `objects` and `edges` sections are read on threads of their own; the result — the dump,
/// or the problem a broken file reports — is the same as one pass over the file gives.
@Suite("LeakGraphDump parallel loading", .serialized)
struct ParallelLoadingTests {
    @Test("a dump read with its objects and its edges on workers equals the dump read in one pass")
    func sameDump() throws {
        let text = JSONExporter.render(generatedSnapshot(objects: 3_000), processID: 9)
        let inOnePass = try withMinimumObjectsBytes(Int.max) { try LeakGraphDump(data: Data(text.utf8)) }
        let workersBefore = ParallelLoading.workersStarted.load(ordering: .relaxed)
        let onAWorker = try withMinimumObjectsBytes(0) { try LeakGraphDump(data: Data(text.utf8)) }
        // One for the objects, one for the edges (at least: other suites load dumps meanwhile).
        #expect(ParallelLoading.workersStarted.load(ordering: .relaxed) >= workersBefore + 2, "not two workers")
        #expect(onAWorker.snapshot.edges.count > 3_000)
        #expect(onAWorker.snapshot == inOnePass.snapshot)
        #expect(onAWorker.cycles == inOnePass.cycles)
        #expect(onAWorker.leakedObjectIDs == inOnePass.leakedObjectIDs)
        #expect(onAWorker.snapshot.objects.count == 3_000)
    }

    @Test("a broken record, whichever part reads it, is reported as one pass reports it")
    func sameProblems() {
        let text = JSONExporter.render(generatedSnapshot(objects: 400))
        let breakages = [
            (#""type":"Node3""#, #""type":3"#),  // in the worker's objects
            (#""type":"Node399""#, #""type":"#),  // the worker's last record
            (#""label":"next""#, #""label":null"#),  // in the edges' worker
            (#""from":7,"#, #""from":70000,"#),  // an edge naming no object
            (#""label":"back","origin""#, #""label":"back",,"origin""#),  // a syntax error in the edges
            (#""type":"Node3""#, #""type":"Node3"}]"#),  // an objects section that ends too soon
        ]
        for (old, new) in breakages {
            #expect(text.contains(old), "\(old)")
            let broken = text.replacingOccurrences(of: old, with: new)
            let inOnePass = withMinimumObjectsBytes(Int.max) { problem(broken) }
            let onAWorker = withMinimumObjectsBytes(0) { problem(broken) }
            #expect(inOnePass != nil)
            #expect(onAWorker == inOnePass)
        }
    }

    @Test("seeded mutations give the same outcome read in one pass and with a worker")
    func sameOutcomesUnderMutation() {
        var generator = SeededGenerator(seed: 0x9A7A_11E1)
        let seed = Array(JSONExporter.render(generatedSnapshot(objects: 60)).utf8)
        for _ in 0..<600 {
            var bytes = seed
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes[at] = Array("{}[],:\"\n0-".utf8).randomElement(using: &generator)!
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(0x0A, at: at)
            default: bytes.insert(contentsOf: Array("\n]".utf8), at: at)
            }
            let data = Data(bytes)
            let inOnePass = withMinimumObjectsBytes(Int.max) { outcome(data) }
            let onAWorker = withMinimumObjectsBytes(0) { outcome(data) }
            #expect(onAWorker == inOnePass)
        }
    }

    @Test("a file whose big sections come before format and version reads the same, pages given back as it goes")
    func sectionsBeforeFormat() throws {
        // {"edges":[…], "format", "version", "objects":[…], "stacks":[]}: the edges (over 1 MB, so
        // that progress is due while they are read last) come before what says how to read them.
        let text = JSONExporter.render(generatedList(objects: 12_000))
        let objects = try #require(section("objects", of: text))
        let edges = try #require(section("edges", of: text))
        #expect(edges.utf8.count > 1 << 20)
        let reordered =
            "{\"edges\":" + edges + ",\"format\":\"leakgraph\",\"version\":1,\n\"objects\":" + objects
            + ",\n\"stacks\":[]}"
        let path = NSTemporaryDirectory() + "ParallelLoadingTests-\(getpid()).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try reordered.write(toFile: path, atomically: true, encoding: .utf8)
        let inOnePass = try withMinimumObjectsBytes(Int.max) { try LeakGraphDump(contentsOf: path) }
        var fractions: [Double] = []
        let workersBefore = ParallelLoading.workersStarted.load(ordering: .relaxed)
        let onAWorker = try withMinimumObjectsBytes(0) { try LeakGraphDump(contentsOf: path) { fractions.append($0) } }
        #expect(ParallelLoading.workersStarted.load(ordering: .relaxed) > workersBefore, "no worker ran")
        #expect(onAWorker.snapshot == inOnePass.snapshot)
        #expect(onAWorker.snapshot.edges.count == 4 * 11_999)
        #expect(fractions.count > 2 && fractions.last == 1)
    }

    @Test("an objects section not laid out one record per line is read in one pass")
    func otherLayouts() throws {
        let text = JSONExporter.render(generatedSnapshot(objects: 50))
        let oneLine = text.replacingOccurrences(of: "\n", with: " ")
        let dump = try withMinimumObjectsBytes(0) { try LeakGraphDump(data: Data(oneLine.utf8)) }
        #expect(dump.snapshot.objects.count == 50)
    }
}

/// Runs `body` with the worker's threshold set to `bytes`, then restores the default.
private func withMinimumObjectsBytes<R>(_ bytes: Int, _ body: () throws -> R) rethrows -> R {
    let saved = ParallelLoading.minimumObjectsBytes.exchange(bytes, ordering: .relaxed)
    defer { ParallelLoading.minimumObjectsBytes.store(saved, ordering: .relaxed) }
    return try body()
}

private func problem(_ text: String) -> String? {
    do {
        _ = try LeakGraphDump(data: Data(text.utf8))
        return nil
    } catch {
        return error.problem
    }
}

/// What loading `data` gives, comparable: the dump's contents or its problem.
private func outcome(_ data: Data) -> String {
    do {
        let dump = try LeakGraphDump(data: data)
        return "\(dump.snapshot.objects) \(dump.snapshot.edges) \(dump.cycles)"
    } catch {
        return "problem: \(error.problem)"
    }
}

/// `objects` nodes in pairs that hold each other (leaked cycles), every tenth one also held by
/// the next pair.
private func generatedSnapshot(objects count: Int) -> GraphSnapshot {
    var objects: [ObjectInfo] = []
    for index in 0..<count {
        let label: String? = index % 7 == 0 ? "label \(index)" : nil
        let retainCount = index % 10 == 0 ? 2 : 1
        let time = Double(index) / 8
        objects.append(
            ObjectInfo(
                id: UInt64(index + 1), type: "Node\(index)", label: label, strongRetainCount: retainCount, time: time))
    }
    var edges: [EdgeInfo] = []
    for index in stride(from: 0, to: count - 1, by: 2) {
        let id = UInt64(index + 1)  // ids start at 1
        edges.append(EdgeInfo(from: id, to: id + 1, kind: .strong, label: "next"))
        edges.append(EdgeInfo(from: id + 1, to: id, kind: .strong, label: "back"))
        if index % 10 == 0, index + 2 < count {
            edges.append(EdgeInfo(from: id + 2, to: id, kind: .strong, label: "holder"))
        }
    }
    return GraphSnapshot(objects: objects, edges: edges, stacks: [], time: 3)
}

/// `count` nodes in a list held from outside (no cycles), four edges each.
private func generatedList(objects count: Int) -> GraphSnapshot {
    var objects: [ObjectInfo] = []
    var edges: [EdgeInfo] = []
    for index in 0..<count {
        let id = UInt64(index + 1)
        objects.append(ObjectInfo(id: id, type: "Item", strongRetainCount: 1, time: Double(index)))
        guard index + 1 < count else { continue }
        for (number, label) in ["next", "peer", "owner", "neighbour"].enumerated() {
            edges.append(
                EdgeInfo(from: id, to: id + 1, kind: number == 0 ? .strong : .weak, label: label, origin: .declared))
        }
    }
    return GraphSnapshot(objects: objects, edges: edges, stacks: [], time: 4)
}

/// The value of top-level section `name` as the writer laid it out (`"name":[` … `]` before the
/// next section's `,\n`).
private func section(_ name: String, of text: String) -> Substring? {
    guard let key = text.range(of: "\"\(name)\":[") else { return nil }
    let start = text.index(key.upperBound, offsetBy: -1)
    guard let end = text.range(of: "],\n\"", range: start..<text.endIndex) else { return nil }
    return text[start...end.lowerBound]
}
