import Foundation
import LeakGraph
import LeakGraphTestSupport
import Testing

@testable import LeakGraphDump

/// A big `objects` section is read on a thread of its own; the result — the dump, or the problem
/// a broken file reports — is the same as one pass over the file gives.
@Suite("LeakGraphDump parallel loading", .serialized)
struct ParallelLoadingTests {
    @Test("a dump read with its objects on a worker equals the dump read in one pass")
    func sameDump() throws {
        let text = JSONExporter.render(generatedSnapshot(objects: 3_000), processID: 9)
        let inOnePass = try withMinimumObjectsBytes(Int.max) { try LeakGraphDump(data: Data(text.utf8)) }
        let onAWorker = try withMinimumObjectsBytes(0) { try LeakGraphDump(data: Data(text.utf8)) }
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
            (#""label":"next""#, #""label":null"#),  // in the edges the reader goes on with
            (#""from":7,"#, #""from":70000,"#),  // an edge naming no object
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
