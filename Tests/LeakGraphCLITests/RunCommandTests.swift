import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

@Suite("leakgraph run")
struct RunCommandTests {
    let directory = makeTemporaryDirectory("run")

    /// A shell "program" that does what dump-at-exit does: writes `leakgraph-$$.json` (its own
    /// pid) into `LEAKGRAPH_DUMP_DIR`, and prints something.
    func fakeProgram(copying dump: String) -> String {
        let script = writeFile(
            "#!/bin/sh\necho \"program output\"\necho \"program errors\" >&2\ncp '\(dump)' \"$LEAKGRAPH_DUMP_DIR/leakgraph-$$.json\"\n",
            "program.sh", in: directory)
        chmod(script, 0o755)
        return script
    }

    @Test("reports the dump the program wrote (by its pid), passes its output through, exits 1 for leaks")
    func reportsTheProgramsDump() throws {
        let dump = writeFile(Graphs.leakingPair.json(), "source.json", in: directory)
        let program = fakeProgram(copying: dump)
        let dumps = directory + "/dumps"
        let run = try runBinary(["run", "--dump-dir", dumps, "--", program])
        #expect(run.status == 1)
        #expect(run.output.hasPrefix("program output\n"))
        #expect(run.output.contains("\(dumps)/leakgraph-"))
        #expect(run.output.contains("Child —parent→ Parent —child→ Child"))
        #expect(run.errors == "program errors\n")
    }

    @Test("a clean program exits 0; the default dump directory is a new temporary one")
    func cleanProgramExitsZero() throws {
        let dump = writeFile(Graphs.cleanPair.json(), "clean.json", in: directory)
        let run = try runBinary(["run", "--", fakeProgram(copying: dump)])
        #expect(run.status == 0)
        #expect(run.output.contains("No leaks."))
        let folder = try #require(
            run.output.split(separator: "\n").first { $0.contains("/leakgraph-run-") }?.split(separator: ":").first
                .map { URL(fileURLWithPath: String($0)).deletingLastPathComponent().path })
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test("a program that writes no dump leaves no empty temporary folder behind")
    func noDumpLeavesNoFolder() throws {
        let temporary = makeTemporaryDirectory("run-tmp")
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let quiet = try runBinary(["run", "--", "/bin/true"], environment: environment)
        #expect(quiet.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    @Test("a program that writes no dump, or cannot be found: exit 2 and one line")
    func noDumpOrNoProgram() throws {
        let quiet = try runBinary(["run", "--", "/bin/true"])
        #expect(quiet.status == 2)
        #expect(quiet.errorLines.count == 1)
        #expect(quiet.errors.hasPrefix("leakgraph: /bin/true: exited with status 0 and wrote no dump"))
        let missing = try runBinary(["run", "--", "no-such-program-here"])
        expectOneLineFailure(missing, naming: "no-such-program-here")
    }

    @Test("runs a real program linked with LeakGraph (cycle-example, when built)")
    func runsCycleExample() throws {
        let example = try builtExample("cycle-example")
        let dumps = directory + "/example-dumps"
        let leak = try runBinary(["run", "--dump-dir", dumps, "--", example])
        #expect(leak.status == 1)
        #expect(leak.output.contains("cycle-example: made a pair (--leak)"))
        #expect(leak.output.contains("Child —parent→ Parent —child→ Child"))
        #expect(leak.output.contains("allocated at makePair(mode:)"))
        #expect(try runBinary(["run", "--dump-dir", dumps, "--", example, "--none"]).status == 0)
        let held = try runBinary(["run", "--dump-dir", dumps, "--format", "json", "--", example, "--hold"])
        #expect(held.status == 0)
        #expect(held.output.contains("\"retainedCycles\""))
    }

    @Test("a program of plain classes is checked by default: every Swift object is recorded and its cycles found")
    func plainProgramIsChecked() throws {
        let example = try builtExample("plain-classes-example")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = nil
        let run = try runBinary(["run", "--dump-dir", directory + "/plain", "--", example], environment: environment)
        #expect(run.status == 1)
        #expect(run.output.contains("Child —parent→ Parent —child→ Child"))
        #expect(!run.output.contains("No leaks."))
    }

    @Test("--tracked-only on a program that makes no tracked object: nothing was tracked, exit 3, never \"No leaks.\"")
    func trackedOnlyOnPlainProgramIsNotClean() throws {
        let example = try builtExample("plain-classes-example")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = nil
        let run = try runBinary(
            ["run", "--tracked-only", "--dump-dir", directory + "/tracked-only", "--", example],
            environment: environment)
        #expect(run.status == 3)
        #expect(run.output.contains("Nothing was checked: nothing was tracked"))
        #expect(!run.output.contains("No leaks."))
        #expect(run.errors.contains("nothing was tracked"))
    }

    @Test("LEAKGRAPH_TRACK misspelt: recorded in the dump, the report exits 3 and says why")
    func misspeltTrackValueIsNotClean() throws {
        let example = try builtExample("plain-classes-example")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "yes"
        let folder = directory + "/misspelt"
        let run = try runBinary(["run", "--dump-dir", folder, "--", example], environment: environment)
        #expect(run.status == 3)
        #expect(run.output.contains("Nothing was checked: LEAKGRAPH_TRACK=yes ignored"))
        let dump = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".json") })
        let text = try String(contentsOfFile: folder + "/" + dump, encoding: .utf8)
        #expect(text.contains(#""trackingProblem":"LEAKGRAPH_TRACK=yes ignored"#))
    }

    @Test("an empty LEAKGRAPH_DUMP_DIR is said, not silently ignored")
    func emptyDumpDirectoryIsSaid() throws {
        let example = try builtExample("plain-classes-example")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_DUMP_DIR"] = ""
        let run = try runExecutable(example, environment: environment)
        #expect(run.errors.contains("LEAKGRAPH_DUMP_DIR is empty: no dump will be written"))
    }

    @Test("with tracking off (LEAKGRAPH=off) nothing was checked: said, exit 3, never \"No leaks.\"")
    func trackingOffIsNotClean() throws {
        let example = try builtExample("cycle-example")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH"] = "off"
        environment["LEAKGRAPH_TRACK"] = nil
        let run = try runBinary(["run", "--dump-dir", directory + "/off", "--", example], environment: environment)
        #expect(run.status == 3)
        #expect(run.output.contains("Nothing was checked: tracking was off"))
        #expect(!run.output.contains("No leaks."))
        #expect(run.errors.contains("tracking was off in this process"))
    }
}

@Suite("leakgraph help")
struct HelpTests {
    @Test("`leakgraph run --help` shows help, not \"command not found\"")
    func runHelp() async {
        let run = await runInProcess(["run", "--help"])
        #expect(run.status == 0)
        #expect((run.output + run.errors).contains("USAGE: leakgraph run"))
        #expect(!(run.output + run.errors).contains("command not found"))
    }

    @Test("help shows sizes as people write them")
    func humanSizes() async {
        let run = await runInProcess(["report", "--help"])
        let text = run.output + run.errors
        #expect(text.contains("1 GiB"), "\(text)")
        #expect(!text.contains("ByteCount("))
        #expect(ByteCount.describe(1 << 30) == "1 GiB")
        #expect(ByteCount.describe(1536 << 20) == "1.5 GiB")
        #expect(ByteCount.describe(900) == "900 bytes")
    }

    @Test("every subcommand's help states its exit statuses", arguments: ["report", "render", "diff", "html", "run"])
    func exitStatusesDocumented(command: String) async {
        let run = await runInProcess([command, "--help"])
        #expect((run.output + run.errors).contains("Exit status"), "\(command)")
    }
}
