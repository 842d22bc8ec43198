import Foundation
import LeakGraph
import LeakGraphDump
import Testing

/// Runs the `cycle-example` program (built next to the tests) with dump-at-exit on.
@Suite("Dump at exit")
struct DumpAtExitTests {
    static var exampleBinary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("cycle-example")
    }

    private func run(_ arguments: [String], dumpDirectory: String, environment extra: [String: String] = [:]) throws
        -> (status: Int32, stderr: String)
    {
        let process = Process()
        process.executableURL = Self.exampleBinary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_DUMP_DIR"] = dumpDirectory
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "leakgraph-test-\(UUID().uuidString)"
        return path
    }

    @Test("a leaked pair is dumped as one leaked cycle naming both types, and dot renders")
    func leakedPair() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run([], dumpDirectory: directory)
        #expect(result.status == 0)
        #expect(result.stderr.contains("1 leaked cycle(s)"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files.count == 2)
        let json = try #require(files.first { $0.hasSuffix(".json") })
        let dump = try LeakGraphDump(contentsOf: directory + "/" + json)
        #expect(dump.cycles.count == 1)
        #expect(dump.cycles[0].leaked)
        #expect(dump.cycles[0].signature.contains("Parent") && dump.cycles[0].signature.contains("Child"))
        if Graphviz.dotExecutable != nil {
            let dot = directory + "/" + files.first { $0.hasSuffix(".dot") }!
            try Graphviz.render(dotFile: dot, to: directory + "/out.svg")
            let svg = try String(contentsOfFile: directory + "/out.svg", encoding: .utf8)
            #expect(svg.contains("<svg"))
        }
    }

    @Test("the same program holding one member in a global reports the cycle as retained")
    func retainedPair() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try run(["--hold"], dumpDirectory: directory)
        let json = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".json") })
        let dump = try LeakGraphDump(contentsOf: directory + "/" + json)
        #expect(dump.cycles.count == 1)
        #expect(dump.cycles[0].leaked == false)
        #expect(dump.leakedObjectIDs.isEmpty)
    }

    @Test("exit(3) from a secondary thread while others allocate: the dump is written and the status kept")
    func exitWhileAllocating() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["--busy-exit"], dumpDirectory: directory)
        #expect(result.status == 3)
        let json = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".json") })
        let dump = try LeakGraphDump(contentsOf: directory + "/" + json)
        #expect(dump.cycles.contains { $0.leaked && $0.signature.contains("Parent") })
    }

    @Test("a full stack table keeps its cap and warns once")
    func stackTableCap() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = Self.exampleBinary
        process.arguments = ["--stack-cap"]
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_DUMP_DIR"] = directory
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let warned = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let line = printed.split(separator: "\n").first { $0.contains("unique stacks") } ?? ""
        let numbers = line.split { !$0.isNumber }.compactMap { Int($0) }
        let unique = numbers.first ?? -1
        let capacity = numbers.last ?? -2
        #expect(unique >= 0 && unique <= capacity, "\(printed)")
        #expect(warned.components(separatedBy: "stack table is full").count == 2, "\(warned)")
    }

    @Test("registry memory returns to its baseline after objects die (a process of its own)")
    func memoryReturns() throws {
        let process = Process()
        process.executableURL = Self.exampleBinary
        process.arguments = ["--memory"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let rounds = printed.split(separator: "\n").filter { $0.contains("round") }.map { line in
            line.split { !$0.isNumber }.compactMap { Int($0) }
        }
        try #require(rounds.count == 3, "\(printed)")
        // [round, bytes, live, edges]: after the first round the tables keep their size.
        #expect(rounds[2][1] == rounds[1][1])
        #expect(rounds[1][2] == rounds[0][2] && rounds[2][2] == rounds[0][2])
        #expect(rounds[2][3] == rounds[0][3])
        #expect(rounds[2][2] <= 2, "only the example's own pair may be alive")
    }

    @Test("dumpAtExit(to:) writes where the code says, unless LEAKGRAPH_DUMP_DIR names a folder: that wins")
    func environmentFolderWinsOverCode() throws {
        let fromCode = temporaryDirectory()
        let fromEnvironment = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: fromCode)
            try? FileManager.default.removeItem(atPath: fromEnvironment)
        }
        let both = try run(["--dump-to", fromCode], dumpDirectory: fromEnvironment)
        #expect(both.status == 0)
        #expect(both.stderr.contains("wrote \(fromEnvironment)/leakgraph-"))
        #expect(!FileManager.default.fileExists(atPath: fromCode))
        let codeOnly = try run(["--dump-to", fromCode], dumpDirectory: "")
        #expect(codeOnly.status == 0)
        #expect(codeOnly.stderr.contains("wrote \(fromCode)/leakgraph-"))
        #expect(codeOnly.stderr.components(separatedBy: "wrote ").count == 2, "one dump, not two")
    }

    @Test("LEAKGRAPH=off tracks nothing, and the exit line and the dump say that nothing was checked")
    func trackingOff() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run([], dumpDirectory: directory, environment: ["LEAKGRAPH": "off"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("tracking was off in this process"))
        #expect(result.stderr.contains("nothing was checked"))
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".json") })
        let dump = try LeakGraphDump(contentsOf: directory + "/" + file)
        #expect(dump.summary?.trackingOff == true)
        #expect(dump.snapshot.objects.isEmpty)
    }

    @Test("an unwritable dump folder gives one line on stderr and keeps the exit status")
    func unwritableFolder() throws {
        let result = try run([], dumpDirectory: "/dev/full/cannot")
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("leakgraph:") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("/dev/full/cannot") == true)
    }

    @Test("an existing file with the same name is never overwritten")
    func neverOverwrites() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/mine.json"
        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SafeFileWriter.Failure.self) { try SafeFileWriter.write("new", to: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test("a full disk is reported, not ignored")
    func fullDisk() {
        #expect(throws: SafeFileWriter.Failure.self) {
            try SafeFileWriter.write(String(repeating: "x", count: 100_000), to: "/dev/full", replace: true)
        }
    }
}
