import Foundation
import LeakGraph
import LeakGraphCLI
import LeakGraphTestSupport
import Testing

/// Issue 6, item 5: bad input never crashes or hangs; it gets exit status 2 and one line naming
/// the file and the problem.
@Suite("leakgraph on bad input")
struct BadInputTests {
    /// A named bad input: how to make the file, and a word the one-line problem contains.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var problem: String
        var make: @Sendable (String) -> String

        var testDescription: String { name }
    }

    static let valid = Graphs.leakingPair.json()

    static func replacing(_ old: String, with new: String) -> @Sendable (String) -> String {
        { directory in writeFile(valid.replacingOccurrences(of: old, with: new), "dump.json", in: directory) }
    }

    static let cases: [Case] = [
        Case(name: "missing file", problem: "no such file") { $0 + "/missing.json" },
        Case(name: "directory", problem: "is a directory") { directory in
            let path = directory + "/folder.json"
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        },
        Case(name: "empty file", problem: "is empty") { writeFile("", "empty.json", in: $0) },
        Case(name: "truncated JSON", problem: "not valid JSON") {
            writeFile(String(valid.prefix(valid.count / 2)), "cut.json", in: $0)
        },
        Case(name: "non-JSON text", problem: "not valid JSON") {
            writeFile("hello, world\n", "text.json", in: $0)
        },
        Case(name: "binary junk", problem: "not valid JSON") { directory in
            var generator = SeededGenerator(seed: 7)
            let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = directory + "/junk.json"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            return path
        },
        Case(
            name: "wrong format", problem: "has format \"other\"",
            make: replacing("\"format\":\"leakgraph\"", with: "\"format\":\"other\"")),
        Case(
            name: "newer version", problem: "newer than this tool reads",
            make: replacing("\"version\":1", with: "\"version\":99")),
        Case(
            name: "missing field", problem: "missing field \"edges\"", make: replacing("\"edges\":", with: "\"edgez\":")
        ),
        Case(
            name: "edge to an id that is not there", problem: "not in \"objects\"",
            make: replacing("\"from\":2,\"to\":1", with: "\"from\":2,\"to\":77")),
        Case(
            name: "stack id that is not there", problem: "not in \"stacks\"",
            make: replacing("\"stack\":1", with: "\"stack\":55")),
        Case(
            name: "id beyond UInt64", problem: "out of range",
            make: replacing("{\"id\":2,", with: "{\"id\":123456789012345678901234567890,")),
        Case(
            name: "negative retain count", problem: "strongRetainCount",
            make: replacing("\"strongRetainCount\":1", with: "\"strongRetainCount\":-9223372036854775808")),
        Case(
            name: "huge retain count", problem: "strongRetainCount",
            make: replacing("\"strongRetainCount\":1", with: "\"strongRetainCount\":9223372036854775807")),
        Case(
            name: "negative userFrame", problem: "userFrame",
            make: replacing("\"userFrame\":1", with: "\"userFrame\":-3")),
        Case(
            name: "huge time", problem: "out of range",
            make: replacing("\"time\":1700000000.000,", with: "\"time\":1e999,")),
        Case(name: "not a regular file", problem: "not a regular file") { _ in "/dev/zero" },
        Case(name: "a file over the size limit (1 GiB, sparse)", problem: "over the 1 GiB limit") { directory in
            let path = directory + "/huge.json"
            _ = FileManager.default.createFile(atPath: path, contents: Data("{".utf8))
            if let handle = FileHandle(forWritingAtPath: path) {
                try? handle.truncate(atOffset: (1 << 30) + 1)
                try? handle.close()
            }
            return path
        },
    ]

    @Test("report: exit 2 and one line naming the file (in-process)", arguments: cases)
    func reportInProcess(_ badInput: Case) async {
        let directory = makeTemporaryDirectory("bad-in-process")
        let path = badInput.make(directory)
        let run = await runInProcess(["report", path])
        expectOneLineFailure(run, naming: path)
        #expect(run.errors.contains(badInput.problem), "stderr: \(run.errors)")
        #expect(run.output.isEmpty)
    }

    @Test("report, render, html and diff: exit 2 and one line naming the file (binary)", arguments: cases)
    func everyCommandThroughBinary(_ badInput: Case) throws {
        let directory = makeTemporaryDirectory("bad-binary")
        let path = badInput.make(directory)
        let good = writeFile(Self.valid, "good.json", in: directory)
        let runs = [
            try runBinary(["report", path]),
            try runBinary(["render", path, "-o", directory + "/out.svg"]),
            try runBinary(["html", path, "-o", directory + "/out.html"]),
            try runBinary(["diff", good, path]),
        ]
        for run in runs {
            expectOneLineFailure(run, naming: path)
            #expect(run.errors.contains(badInput.problem), "stderr: \(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.svg"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.html"))
    }

    @Test("--max-size refuses a valid dump that is larger than the limit")
    func maxSizeRefusesLargerDump() async {
        let directory = makeTemporaryDirectory("max-size")
        let path = writeFile(Self.valid, "dump.json", in: directory)
        let run = await runInProcess(["report", path, "--max-size", "1k"])
        expectOneLineFailure(run, naming: path)
        #expect(run.errors.contains("over the 1 KiB limit (raise it with --max-size)"))
        #expect(await runInProcess(["report", path, "--max-size", "1m"]).status == 1)
    }

    @Test("render: a dot file with a syntax error gives dot's first error line")
    func dotSyntaxError() throws {
        try #require(GraphRenderer.graphviz.isAvailable, "Graphviz is installed")
        let directory = makeTemporaryDirectory("dot-error")
        let path = writeFile("digraph {\n  a -> ;\n}\n", "broken.dot", in: directory)
        let run = try runBinary(["render", path])
        expectOneLineFailure(run, naming: path)
        #expect(run.errors.contains("dot failed: Error: \(path): syntax error in line 2"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/broken.svg"))
    }

    @Test(
        "usage errors exit 2 with one line, not ArgumentParser's 64",
        arguments: [
            [], ["report"], ["report", "a.json", "--top", "0"], ["report", "a.json", "--format", "xml"], ["bogus"],
            ["render", "a.json", "--format", "gif"], ["report", "a.json", "--max-size", "lots"], ["run"],
            ["diff", "a.json"],
        ])
    func usageErrors(_ arguments: [String]) throws {
        let run = try runBinary(arguments)
        #expect(run.status == 2)
        #expect(run.errorLines.count == 1, "stderr: \(run.errors)")
        #expect(run.errors.hasPrefix("leakgraph: "))
        #expect(run.output.isEmpty)
    }

    @Test("--help prints the help on stdout and exits 0")
    func helpExitsZero() throws {
        let run = try runBinary(["report", "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("USAGE: leakgraph report"))
        let root = try runBinary(["--help"])
        #expect(root.status == 0)
        #expect(root.output.contains("render"))
    }
}
