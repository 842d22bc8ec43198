import Foundation
import LeakGraph
import LeakGraphDump
import Testing

/// Runs the `server-example` program (threads leak a pair every 50 ms) with
/// `LEAKGRAPH_DUMP_ON=exit,term,usr1`: dumps on demand while it runs, and a final one when its
/// supervisor stops it.
@Suite("Dumps on signals", .serialized)
struct SignalDumpTests {
    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("server-example").path

    /// A running server-example, started as a supervisor would: every signal unblocked and at
    /// its default (a test runner's threads block some, and a child inherits that).
    struct Server {
        let pid: pid_t
        let output: Int32

        init(arguments: [String], environment extra: [String: String?]) throws {
            var environment = ProcessInfo.processInfo.environment
            for (key, value) in extra { environment[key] = value }
            var pipe: [Int32] = [-1, -1]
            try #require(Glibc.pipe(&pipe) == 0)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = ([SignalDumpTests.binary] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            try #require(posix_spawn(&pid, SignalDumpTests.binary, &actions, &attributes, argv, envp) == 0)
            close(pipe[1])
            self.pid = pid
            output = pipe[0]
        }

        /// Waits for `ready` on its output.
        func waitUntilReady() {
            var seen: [UInt8] = []
            var byte: UInt8 = 0
            while !String(decoding: seen, as: UTF8.self).contains("ready"), read(output, &byte, 1) == 1 {
                seen.append(byte)
            }
        }

        /// Waits for it to end: the signal that ended it, or nil when it exited.
        func waitForEnd() -> Int32? {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            close(output)
            return status & 0x7F != 0 ? status & 0x7F : nil
        }
    }

    /// Waits until `path` exists (at most 30 s).
    func waitFor(_ path: String) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            usleep(20_000)
        }
        return false
    }

    @Test(
        "SIGUSR1 dumps while the program runs (distinct names, growth shows); SIGTERM dumps, then ends it as SIGTERM would"
    )
    func dumpsOnDemandAndOnTerm() throws {
        let directory = NSTemporaryDirectory() + "leakgraph-signals-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try Server(
            arguments: ["--seconds", "60", "--leak-every", "50"],
            environment: [
                "LEAKGRAPH_TRACK": "all", "LEAKGRAPH_DUMP_DIR": directory, "LEAKGRAPH_DUMP_ON": "exit,term,usr1",
                "LEAKGRAPH_STACKS": "off",
            ])
        server.waitUntilReady()
        let first = directory + "/leakgraph-\(server.pid)-1.json"
        let second = directory + "/leakgraph-\(server.pid)-2.json"
        usleep(300_000)
        kill(server.pid, SIGUSR1)
        #expect(waitFor(first))
        usleep(1_000_000)
        kill(server.pid, SIGUSR1)
        #expect(waitFor(second))
        #expect(kill(server.pid, 0) == 0, "an on-demand dump leaves the program running")
        kill(server.pid, SIGTERM)
        #expect(server.waitForEnd() == SIGTERM, "ended by SIGTERM, as without LeakGraph")
        #expect(FileManager.default.fileExists(atPath: directory + "/leakgraph-\(server.pid).json"), "the final dump")
        let before = try LeakGraphDump(contentsOf: first).cycles.filter(\.leaked).count
        let after = try LeakGraphDump(contentsOf: second).cycles.filter(\.leaked).count
        #expect(after > before, "the leak grows between the two dumps: \(before) → \(after)")
    }

    @Test("without LEAKGRAPH_DUMP_ON the signals are the program's: SIGTERM ends it with no dump")
    func signalsUntouchedByDefault() throws {
        let directory = NSTemporaryDirectory() + "leakgraph-signals-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try Server(
            arguments: ["--seconds", "60"],
            environment: ["LEAKGRAPH_TRACK": "all", "LEAKGRAPH_DUMP_DIR": directory, "LEAKGRAPH_DUMP_ON": nil])
        server.waitUntilReady()
        kill(server.pid, SIGTERM)
        #expect(server.waitForEnd() == SIGTERM)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        #expect(!files.contains { $0.hasSuffix(".json") }, "\(files)")
    }
}
