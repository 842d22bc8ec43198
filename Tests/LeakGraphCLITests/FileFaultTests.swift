import Foundation
import LeakGraph
import Testing

/// Faults while LeakGraph writes files (`LEAKGRAPH_FAULT_INJECTION`, and SIGKILL): never a crash,
/// never a changed exit status of the program, one clear line, and never a lost or half-written
/// file under the user's name.
@Suite("File faults", .serialized)
struct FileFaultTests {
    let directory = makeTemporaryDirectory("faults")

    /// Files in `folder`, hidden temporaries included.
    func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test(
        "a full disk or an I/O error during the dump at exit: the program's exit status is unchanged, one line, nothing half-written",
        arguments: ["write:ENOSPC@1", "write:ENOSPC@2", "write:EIO@1"])
    func failingDumpAtExit(fault: String) throws {
        let example = try builtExample("plain-classes-example")
        let folder = directory + "/dump-\(fault.filter { $0.isLetter || $0.isNumber })"
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_DUMP_DIR"] = folder
        environment["LEAKGRAPH_DUMP"] = "full"
        environment["LEAKGRAPH_FAULT_INJECTION"] = fault
        let run = try runExecutable(example, environment: environment)
        #expect(!run.crashed)
        #expect(run.status == 0, "the program's own status: \(run.errors)")
        let lines = run.errors.split(separator: "\n").filter { $0.hasPrefix("leakgraph:") }
        #expect(lines.count == 1, "\(run.errors)")
        #expect(lines.first?.contains("cannot write") == true, "\(run.errors)")
        // No temporary left; a dump that was written before the failure (the JSON, when the
        // picture failed) is whole.
        #expect(!files(in: folder).contains { $0.contains(".tmp-") }, "\(files(in: folder))")
        for dump in files(in: folder) where dump.hasSuffix(".json") {
            #expect(try runBinary(["report", folder + "/" + dump]).status == 1)
        }
    }

    @Test(
        "interrupted and short writes are retried: the dump is complete and readable",
        arguments: ["write:EINTR@2", "write:short@1"])
    func retriedWrites(fault: String) throws {
        let example = try builtExample("plain-classes-example")
        let folder = directory + "/retried-\(fault.filter { $0.isLetter || $0.isNumber })"
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_DUMP_DIR"] = folder
        environment["LEAKGRAPH_FAULT_INJECTION"] = fault
        let run = try runExecutable(example, environment: environment)
        #expect(run.status == 0)
        let dump = try #require(files(in: folder).first { $0.hasSuffix(".json") })
        let report = try runBinary(["report", folder + "/" + dump])
        #expect(report.status == 1, "the example's leaks, read from a whole file: \(report.errors)")
    }

    @Test("a --force replacement that fails leaves the old file as it was")
    func failedReplacementKeepsTheOldFile() throws {
        let dump = writeFile(Graphs.leakingPair.json(), "pair.json", in: directory)
        let target = writeFile("# the user's reviewed baseline\n", "baseline.txt", in: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_FAULT_INJECTION"] = "write:ENOSPC@1"
        let run = try runBinary(["baseline", dump, "-o", target, "--force"], environment: environment)
        #expect(run.status == 2)
        #expect(run.errorLines.count == 1, "\(run.errors)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "# the user's reviewed baseline\n")
        #expect(!files(in: directory).contains { $0.contains(".tmp-") })
        // Without the fault, the same command replaces it.
        #expect(try runBinary(["baseline", dump, "-o", target, "--force"]).status == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("Child —parent→ Parent"))
    }

    @Test(
        "killed at random moments while replacing a big page: the file is the old one or the whole new one, never half")
    func killedMidWrite() throws {
        var graph = GraphBuilder()
        for index in 0..<40_000 {
            let parent = graph.object("Parent", site: "make() at Sources/App/main.swift:\(index % 50 + 1)")
            let child = graph.object("Child")
            graph.edge(parent, child, "child")
            graph.edge(child, parent, "parent")
        }
        let dump = writeFile(graph.json(), "big.json", in: directory)
        let page = directory + "/report.html"
        let old = "<!-- the page from yesterday -->\n"
        let binary = try #require(leakgraphBinary)
        var outcomes: Set<String> = []
        for attempt in 0..<12 {
            _ = FileManager.default.createFile(atPath: page, contents: Data(old.utf8))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["html", dump, "-o", page, "--force", "--top", "5"]
            // A killed writer's own temporaries (its pictures' dot files) go in this test's folder,
            // which is removed with it, not in the machine's /tmp.
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = directory + "/"
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(50_000 + attempt * 60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let text = try String(contentsOfFile: page, encoding: .utf8)
            if text == old {
                outcomes.insert("old")
            } else {
                #expect(text.hasSuffix("</html>\n"), "a whole page, never half of one (attempt \(attempt))")
                outcomes.insert("new")
            }
        }
        // Temporaries of killed writers may stay (hidden, never under the user's name).
        #expect(!outcomes.isEmpty)
    }

    @Test(
        "eight processes dumping into one folder at the same moment: eight dumps, all readable, one report for the folder"
    )
    func manyProcessesOneFolder() throws {
        let example = try builtExample("plain-classes-example")
        let folder = directory + "/shared"
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_DUMP_DIR"] = folder
        let processes = try (0..<8).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: example)
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        let dumps = files(in: folder).filter { $0.hasSuffix(".json") }
        #expect(dumps.count == 8, "\(files(in: folder))")
        #expect(!files(in: folder).contains { $0.contains(".tmp-") })
        let report = try runBinary(["report", folder])
        #expect(report.status == 1)
        #expect(report.output.contains("8 dump(s) in \(folder): 8 with leaks"), "\(report.output.suffix(300))")
        let empty = makeTemporaryDirectory("empty-folder")
        let none = try runBinary(["report", empty])
        expectOneLineFailure(none, naming: empty)
    }
}
