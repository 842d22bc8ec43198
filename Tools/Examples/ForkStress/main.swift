// Forks while other threads allocate, take snapshots and make tracked objects: every child must
// exit. A LeakGraph lock held by another thread at the moment of fork() would never be released
// in the child, whose first allocation would then wait forever (39 of 200 children hung before
// LeakGraph held its locks across fork).
//
//     LEAKGRAPH_TRACK=all swift run fork-stress-example 300          # children _exit(0)
//     LEAKGRAPH_TRACK=all LEAKGRAPH_DUMP_DIR=/tmp/d swift run fork-stress-example 20 --exit
//
// Prints `forks: N, exited: N, hung: 0` and exits 1 when a child hung (killed after 10 s).

import Foundation
import LeakGraph
import Synchronization

final class Item {
    var next: Item?
    let value: Int
    init(_ value: Int) { self.value = value }
}

final class Tracked: TrackedObject {
    var other: Tracked?
}

let arguments = CommandLine.arguments.dropFirst()
let forks = arguments.first.flatMap { Int($0) } ?? 200
let childrenExit = arguments.contains("--exit")
// Children allocate plain objects only (no TrackedObject): under the thread sanitizer every access
// to a Swift lazy global (the registry's) takes the runtime's once lock, which a forked child can
// inherit held by a thread that does not exist there; that is the runtime's, not LeakGraph's.
let plainChildren = arguments.contains("--plain-children")
let stop = Atomic<Bool>(false)

// `fork` is marked unavailable in Swift (threads or posix_spawn are what it recommends); this
// program exists to test what a process that forks anyway gets.
typealias ForkFunction = @convention(c) () -> pid_t
#if os(Linux)
    let defaultHandle = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
#else
    let defaultHandle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
#endif
let forkFunction = unsafeBitCast(dlsym(defaultHandle, "fork"), to: ForkFunction.self)

@inline(never)
func churn(_ count: Int, tracked: Bool = true) {
    var head: Item?
    for value in 0..<count {
        let item = Item(value)
        item.next = head
        head = item
    }
    if tracked {
        let pair = (Tracked(), Tracked())
        pair.0.other = pair.1
        pair.0.other = nil
    }
    withExtendedLifetime(head) {}
}

var workers: [Thread] = []
for worker in 0..<2 {
    let thread = Thread {
        var rounds = 0
        while !stop.load(ordering: .relaxed) {
            churn(200)
            rounds += 1
            // Now and then a snapshot: it holds the registry's and the tables' locks longest.
            if worker == 0 && rounds % 20 == 0 { _ = LeakGraph.snapshot() }
        }
    }
    thread.start()
    workers.append(thread)
}

var exited = 0
var hung = 0

/// What a hung child waits on, for the output: the system call it is blocked in and, for a futex,
/// the mapping the lock is in and its offset there (resolve with `nm` on that file).
func whereItWaits(_ pid: pid_t) -> String {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return "unknown" }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let number = Int(fields[0]), let address = UInt(fields[1].dropFirst(2), radix: 16)
    else { return text }
    guard number == 202, let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else {
        return "system call \(number), first argument 0x\(String(address, radix: 16))"
    }
    for line in maps.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        let range = parts[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
        guard range.count == 2, address >= range[0], address < range[1], parts.count >= 3,
            let fileOffset = UInt(parts[2], radix: 16)
        else { continue }
        let path = parts.count >= 6 ? String(parts[5]) : "anonymous"
        return
            "futex 0x\(String(address, radix: 16)) in \(path) at file offset 0x\(String(address - range[0] + fileOffset, radix: 16))"
    }
    return "futex 0x\(String(address, radix: 16)), unmapped"
}

for _ in 0..<forks {
    let pid = forkFunction()
    if pid == 0 {
        churn(100, tracked: !plainChildren)
        if childrenExit { exit(0) }
        _exit(0)
    }
    guard pid > 0 else {
        perror("fork")
        break
    }
    var status: Int32 = 0
    var waited: pid_t = 0
    let deadline = Date().addingTimeInterval(10)
    while waited == 0 && Date() < deadline {
        waited = waitpid(pid, &status, WNOHANG)
        if waited == 0 { usleep(1_000) }
    }
    if waited == pid {
        exited += 1
    } else {
        hung += 1
        print("hung child: \(whereItWaits(pid))")
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}
stop.store(true, ordering: .relaxed)
print("forks: \(forks), exited: \(exited), hung: \(hung)")
exit(hung > 0 ? 1 : 0)
