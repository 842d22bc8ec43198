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
        // Under the thread sanitizer the runtime marks a finished lazy global so that every access
        // to it still takes its once lock (for the sanitizer to see the ordering), and a child can
        // inherit that lock held by another thread of the parent: the children allocate plain
        // objects only there, through LeakGraph's hook and tables. LeakGraph's own fork handler
        // touches no Swift global for that reason (a child of about one run in twenty hung in it
        // before).
        let run = try Self.run(["\(forks)"] + (Self.underThreadSanitizer ? ["--plain-children"] : []))
        #expect(run.output.contains("forks: \(forks), exited: \(forks), hung: 0"), "\(run.output)")
        #expect(run.status == 0)
    }

    @Test(
        "children that exit normally each write their own readable dump (no thread, no Dispatch in the child)",
        .enabled(
            if: !underThreadSanitizer,
            "under the thread sanitizer every Swift lazy global's access takes its once lock, which a child's dump may inherit held"
        )
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
