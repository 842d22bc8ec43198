import Foundation
import LeakGraph
import LeakGraphTesting
import Testing

@Suite("Baseline and process-wide check")
struct LeakBaselineTests {
    private func cycle(_ signature: String, leaked: Bool = true) -> Cycle {
        Cycle(objects: [1], leaked: leaked, signature: signature, path: [], loopDescription: signature)
    }

    @Test("new leaks, accepted ones and stale entries are told apart")
    func compare() {
        let baseline = LeakBaseline(signatures: ["A —x→ A", "Gone —y→ Gone"])
        let (new, accepted, stale) = baseline.compare([cycle("A —x→ A"), cycle("B —z→ B"), cycle("C", leaked: false)])
        #expect(new.map(\.signature) == ["B —z→ B"])
        #expect(accepted.map(\.signature) == ["A —x→ A"])
        #expect(stale == ["Gone —y→ Gone"])
    }

    @Test("a baseline file is read line by line, comments and blanks skipped; a missing one is an error")
    func file() throws {
        let path = NSTemporaryDirectory() + "baseline-\(UUID().uuidString).txt"
        try "# reviewed\nA —x→ A\n\n  B —y→ B  \n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try LeakBaseline(contentsOf: path).signatures == ["A —x→ A", "B —y→ B"])
        #expect(throws: DumpError.self) { try LeakBaseline(contentsOf: path + ".missing") }
    }

    @Test("a missing baseline says so, naming the working directory for a relative path")
    func missingFileIsNamed() {
        do {
            _ = try LeakBaseline(contentsOf: "no-such-dir/leak-baseline.txt")
            Issue.record("a missing baseline was read")
        } catch {
            #expect(error.description.contains("no such baseline file"))
            #expect(error.description.contains(FileManager.default.currentDirectoryPath))
        }
    }

    @Test("entries typed with ASCII arrows match the signatures they spell")
    func asciiArrows() throws {
        let path = NSTemporaryDirectory() + "baseline-\(UUID().uuidString).txt"
        try
            "Child -parent-> Parent -child-> Child\nObserver<(Int) -> ()> -sink-> Observer<(Int) -> ()>\nNode -captured self-> Node\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            try LeakBaseline(contentsOf: path).signatures == [
                "Child —parent→ Parent —child→ Child", "Observer<(Int) -> ()> —sink→ Observer<(Int) -> ()>",
                "Node —captured self→ Node",
            ])
    }

    @Test("the process-wide check fails on a planted leak and names its signature")
    func processCheck() {
        plantLeak()
        let (failed, text) = ProcessLeakCheck.evaluate(baseline: LeakBaseline())
        #expect(failed)
        #expect(text.contains("Presenter —screen→ Screen —presenter→ Presenter"))
    }
}
