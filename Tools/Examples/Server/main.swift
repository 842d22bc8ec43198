// A server-shaped program: worker threads churn objects and, every `--leak-every` milliseconds
// (0: never), one of them leaks a session ⇄ token pair; a monitor reads `LeakGraph.liveObjects` every
// second. It runs until `--seconds` pass or a signal ends it, printing `ready` once it serves.
//
//     LEAKGRAPH_TRACK=all LEAKGRAPH_DUMP_DIR=dumps LEAKGRAPH_DUMP_ON=exit,term,usr1 \
//         swift run server-example --seconds 600 &
//     kill -USR1 %1; sleep 5; kill -USR1 %1      # two dumps while it runs
//     swift run leakgraph diff dumps/leakgraph-<pid>-1.json dumps/leakgraph-<pid>-2.json
//     kill %1                                     # SIGTERM: the final dump, then the default action
//
// `--soak` prints one line of figures per second (resident memory, live records, snapshot time)
// for the soak benchmark.

import Foundation
import LeakGraph
import Synchronization

final class Session {
    var token: Token?
    let id: Int
    init(id: Int) { self.id = id }
}

final class Token {
    var session: Session?
}

final class Request {
    var headers: [String: String] = [:]
    var body: [UInt8] = []
}

func option(_ name: String, default value: Double) -> Double {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return Double(arguments[index + 1]) ?? value
}

let seconds = option("--seconds", default: 30)
let leakEvery = option("--leak-every", default: 100) / 1000
let soak = CommandLine.arguments.contains("--soak")
let leaked = Atomic<Int>(0)

@inline(never)
func leakPair(_ id: Int) {
    let session = Session(id: id)
    let token = Token()
    session.token = token
    token.session = session
}

/// With `--startup-leak`: one pair leaked at start, inside a function the optimiser inlines into
/// its caller. A release build's report must name this function's own lines (CI checks it), not
/// the caller's.
@inline(__always)
func leakAtStartup() {
    let session = Session(id: -1)
    let token = Token()
    session.token = token
    token.session = session
    // Seen from outside for a moment, so that the optimiser keeps the pair.
    startupSeen = session
    startupSeen = nil
}

nonisolated(unsafe) var startupSeen: AnyObject?

@inline(never)
func serve(_ count: Int) {
    var requests: [Request] = []
    for index in 0..<count {
        let request = Request()
        request.headers["n"] = String(index)
        request.body = [UInt8](repeating: 1, count: 64)
        requests.append(request)
    }
    withExtendedLifetime(requests) {}
}

for worker in 0..<2 {
    Thread {
        var next = Date()
        while true {
            serve(100)
            if worker == 0 && leakEvery > 0 && Date() >= next {
                leakPair(leaked.wrappingAdd(1, ordering: .relaxed).newValue)
                next = Date().addingTimeInterval(leakEvery)
            }
            usleep(1_000)
        }
    }.start()
}

func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? -1
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

if CommandLine.arguments.contains("--startup-leak") { leakAtStartup() }
say("ready")
let start = Date()
while Date().timeIntervalSince(start) < seconds {
    sleep(1)
    let before = Date()
    let live = LeakGraph.liveObjects(since: LeakGraph.checkpoint()).count
    if soak {
        say(
            String(
                format: "t=%.0fs rss=%dKiB leaked-pairs=%d live-since-now=%d liveObjects-ms=%.1f",
                Date().timeIntervalSince(start), residentKiB(), leaked.load(ordering: .relaxed), live,
                Date().timeIntervalSince(before) * 1000))
    }
}
say("done")
