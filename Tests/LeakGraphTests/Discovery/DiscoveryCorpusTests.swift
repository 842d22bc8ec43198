import Foundation
import LeakGraph
import LeakGraphDump
import Testing

/// Runs every scenario of the `discovery-corpus` program in a process of its own, through the
/// dump at exit, and checks the verdict for its labelled objects: a crash, a hang, a false
/// "leaked" or a missed leak fails.
@Suite("Discovery corpus (one process per scenario)")
struct DiscoveryCorpusTests {
    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("discovery-corpus").path

    static let scenarios: [String] = {
        guard let output = try? run(["--list"]).output else { return [] }
        return output.split(separator: "\n").map(String.init)
    }()

    static func run(_ arguments: [String], environment extra: [String: String] = [:]) throws
        -> (status: Int32, output: String, errors: String, signalled: Bool)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { _, new in new }
        // Whole-process tracking only where asked: the plain run checks tracked objects only.
        if extra["LEAKGRAPH_TRACK"] == nil { environment["LEAKGRAPH_TRACK"] = nil }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self), process.terminationReason == .uncaughtSignal
        )
    }

    @Test("the corpus lists its scenarios")
    func listsScenarios() {
        #expect(Self.scenarios.count >= 25)
    }

    @Test("each scenario gives its verdict, without a crash or a hang", arguments: scenarios)
    func scenario(_ line: String) throws {
        try check(line, environment: [:])
    }

    @Test("each scenario gives its verdict under whole-process tracking", arguments: scenarios)
    func scenarioTrackingAll(_ line: String) throws {
        try check(line, environment: ["LEAKGRAPH_TRACK": "all"])
    }

    /// Whether this process runs under the address sanitizer (and so does the corpus, built with it).
    static let underAddressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

    /// What a dump says of objects expected to leak: their outside holders, and the verdict and
    /// unexplained holders of the cycles they are in.
    static func whyNotLeaked(_ objects: [ObjectInfo], in dump: LeakGraphDump) -> String {
        let ids = Set(objects.map(\.id))
        let holders = objects.map { "#\($0.id) \($0.type) held by \($0.outsideHolders)" }
        let cycles = dump.cycles.filter { $0.objects.contains(where: ids.contains) }.map { cycle in
            "\(cycle.leaked ? "leaked" : "retained") \(cycle.signature), unexplained \(cycle.unexplainedHolders)"
        }
        return "objects: \(holders); cycles: \(cycles.isEmpty ? ["none"] : cycles)"
    }

    private func check(_ line: String, environment: [String: String]) throws {
        let parts = line.split(separator: " ").map(String.init)
        let name = parts[0]
        let expected = environment["LEAKGRAPH_TRACK"] == "all" ? parts[1] : parts[2]
        let directory = NSTemporaryDirectory() + "leakgraph-corpus-\(getpid())-\(name)-\(environment.count)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try Self.run(
            [name],
            environment: environment.merging(["LEAKGRAPH_DUMP_DIR": directory, "LEAKGRAPH_STACKS": "off"]) { $1 })
        #expect(!result.signalled, "crashed: \(result.errors)")
        #expect(result.status == 0, "\(result.errors)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let json = try #require(files.first { $0.hasSuffix(".json") }, "a dump was written: \(result.errors)")
        let dump = try LeakGraphDump(contentsOf: directory + "/" + json)
        let mine = dump.snapshot.objects.filter { $0.label == name }
        let leaked = mine.filter { dump.leakedObjectIDs.contains($0.id) }
        switch expected {
        case "leaked"
        where Self.underAddressSanitizer && name.hasPrefix("task-") && leaked.isEmpty
            && mine.contains(where: { $0.outsideHolders.contains { $0.hasPrefix("the stack of thread") } }):
            // Under the address sanitizer a blocked thread's stack keeps stale words (its frames are
            // larger): one at the owner is a holder no snapshot can tell from a live local, so the
            // task's cycle is retained, and the dump names that stack as its holder.
            break
        case "leaked":
            // On a failure, why: what the dump says holds each object, and its cycle's verdict.
            #expect(
                !mine.isEmpty && leaked.count == mine.count,
                "\(leaked.count) of \(mine.count) leaked; \(Self.whyNotLeaked(mine, in: dump))")
            // Every reference of a leaked shape is read, except where the README says it cannot
            // be: a parameter pack's captures, a task's frames.
            // (And an error's box, with Objective-C interop.)
            if !name.contains("parameter-pack") && !name.hasPrefix("task-")
                && (ErrorAndConstrainedExistentialTests.readsErrorBoxes || !name.contains("failure"))
                && (ErrorAndConstrainedExistentialTests.readsErrorBoxes || !name.contains("error"))
            {
                let ids = Set(mine.map(\.id))
                let unread = dump.snapshot.unreadReferences.filter { ids.contains($0.object) }
                #expect(unread.isEmpty, "said unread: \(unread.map(\.why))")
            }
        case "alive":
            #expect(!mine.isEmpty, "alive")
            #expect(!leaked.isEmpty || !dump.possibleLeaks.isEmpty, "leaked, or said to be a possible leak")
        case "retained":
            #expect(!mine.isEmpty, "alive")
            #expect(leaked.isEmpty, "no false leaked verdict: \(leaked.map(\.type))")
        default:
            #expect(mine.isEmpty, "freed, but \(mine.count) alive")
        }
    }
}
