import Foundation
import LeakGraphDump
import Testing

/// Runs the `fork-stress-example` program: it forks while two threads allocate, make tracked
/// objects and take snapshots. Before LeakGraph held its locks across fork(), about one child in
/// five inherited a lock held by a thread that does not exist in it, and hung forever.
@Suite("fork", .serialized)
struct ForkSafetyTests {
    /// Whether this process runs under the thread sanitizer (and so does the example, built with it).
    static let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("fork-stress-example").path

    struct Run {
        var status: Int32
        var output: String
    }

    static func run(_ arguments: [String], dumpDirectory: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_DUMP_DIR"] = dumpDirectory
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    @Test("a thousand children forked while threads allocate and snapshot all exit (none inherits a held lock)")
    func childrenNeverHang() throws {
        // Fewer under the sanitizers (LEAKGRAPH_STRESS_SCALE=0.1 in CI): each fork copies their shadow state.
        let scale = ProcessInfo.processInfo.environment["LEAKGRAPH_STRESS_SCALE"].flatMap(Double.init) ?? 1
        let forks = max(50, Int(1000 * scale))
        // Under the thread sanitizer every Swift lazy-global access takes the runtime's once lock,
        // which a child can inherit held (the runtime's, not LeakGraph's): the children allocate
        // plain objects only there, through LeakGraph's hook and tables.
        let run = try Self.run(["\(forks)"] + (Self.underThreadSanitizer ? ["--plain-children"] : []))
        let allExited = run.output.contains("forks: \(forks), exited: \(forks), hung: 0")
        if Self.underThreadSanitizer && !allExited {
            // Under the thread sanitizer about one run in twenty has one child of 100 hang (seen on
            // 2026-11-27, not explained yet: the output says where the child waits). Without the
            // sanitizer every child must exit.
            withKnownIssue("a child hung under the thread sanitizer: \(run.output)", isIntermittent: true) {
                #expect(allExited)
            }
            return
        }
        #expect(allExited, "\(run.output)")
        #expect(run.status == 0)
    }

    @Test(
        "children that exit normally each write their own readable dump (no thread, no Dispatch in the child)",
        .enabled(
            if: !underThreadSanitizer,
            "under the thread sanitizer a child's dump touches Swift lazy globals, whose once lock it may inherit held")
    )
    func childrenWriteTheirDumps() throws {
        let directory = NSTemporaryDirectory() + "leakgraph-fork-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try Self.run(["12", "--exit"], dumpDirectory: directory)
        #expect(run.output.contains("forks: 12, exited: 12, hung: 0"), "\(run.output)")
        let dumps = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        #expect(dumps.count == 13, "one per child and the parent's: \(dumps)")
        for name in dumps {
            let dump = try LeakGraphDump(contentsOf: directory + "/" + name)
            #expect(dump.summary?.tracking == "all")
        }
    }
}
