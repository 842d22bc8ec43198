import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

/// Writes a dump of `count` objects in leaked pairs (`Parent ⇄ Child`, with cycles), with 100
/// stacks, straight to text (JSONExporter would analyse it first).
func writeLargeDump(objects count: Int, to path: String) {
    var text = "{\"format\":\"leakgraph\",\"version\":1,\"pid\":1,\"time\":1.000,\n\"objects\":["
    text.reserveCapacity(count * 330)
    for id in 1...count {
        if id > 1 { text += "," }
        text += "\n{\"id\":\(id),\"type\":\"\(id % 2 == 1 ? "Parent" : "Child<Int>")\",\"label\":null,"
        text +=
            "\"strongRetainCount\":1,\"stack\":\(id % 100),\"time\":1.000,\"state\":\"unspecified\",\"scope\":0,\"leaked\":true}"
    }
    text += "],\n\"edges\":["
    for id in stride(from: 1, to: count, by: 2) {
        if id > 1 { text += "," }
        text +=
            "\n{\"from\":\(id),\"to\":\(id + 1),\"kind\":\"strong\",\"label\":\"child\",\"origin\":\"declared\",\"count\":1,\"site\":null,\"closure\":null},"
        text +=
            "\n{\"from\":\(id + 1),\"to\":\(id),\"kind\":\"strong\",\"label\":\"parent\",\"origin\":\"declared\",\"count\":1,\"site\":null,\"closure\":null}"
    }
    text += "],\n\"stacks\":["
    for id in 0..<100 {
        if id > 0 { text += "," }
        text +=
            "\n{\"id\":\(id),\"frames\":[\"make\(id)() at Sources/App/File\(id).swift:\(id)\",\"main at main.swift:1\"],\"userFrame\":0}"
    }
    text += "],\n\"cycles\":["
    for id in stride(from: 1, to: count, by: 2) {
        if id > 1 { text += "," }
        text +=
            "\n{\"objects\":[\(id),\(id + 1)],\"leaked\":true,\"signature\":\"Child<Int> —parent→ Parent —child→ Child<Int>\","
        text +=
            "\"path\":[{\"from\":\(id + 1),\"to\":\(id),\"label\":\"parent\"},{\"from\":\(id),\"to\":\(id + 1),\"label\":\"child\"}],"
        text += "\"loop\":\"Child<Int> —parent→ Parent —child→ Child<Int>\",\"unexplainedHolders\":[]}"
    }
    text += "],\n\"unknownOwners\":[]}\n"
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

/// Opt-in (`LEAKGRAPH_CLI_PERF=1 swift test --filter LoadPerformance`): a dump of 1,000,000
/// objects loads and reports; prints the figures. Too slow for every run in a debug build.
@Suite(
    "leakgraph load performance",
    .enabled(
        if: ProcessInfo.processInfo.environment["LEAKGRAPH_CLI_PERF"] == "1",
        "a benchmark: LEAKGRAPH_CLI_PERF=1 runs it"))
struct LoadPerformanceTests {
    @Test("a 1,000,000-object dump loads and reports")
    func millionObjects() throws {
        let directory = makeTemporaryDirectory("perf")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/million.json"
        writeLargeDump(objects: 1_000_000, to: path)
        let start = Date()
        let result = try ReportCommand.run(path: path, loader: DumpLoader(console: ConsoleCapture().console))
        let seconds = Date().timeIntervalSince(start)
        print("leakgraph report on 1,000,000 objects: \(String(format: "%.1f", seconds)) s")
        #expect(result.status == .leaksFound)
        #expect(result.output.contains("500000 × Child<Int> —parent→ Parent —child→ Child<Int>"))
    }
}
