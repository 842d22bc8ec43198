import CLeakGraphSupport
import Foundation
import Testing

@testable import LeakGraph

private final class StackHeldParent: TrackedObject {
    var child: StackHeldChild?
}

private final class StackHeldChild: TrackedObject {
    var parent: StackHeldParent?
}

/// A retained cycle of two, labelled `label`; broken by `parent.child = nil`.
private func makeCycle(_ label: String) -> StackHeldParent {
    let parent = StackHeldParent(label: label)
    let child = StackHeldChild(label: label)
    parent.child = child
    child.parent = parent
    return parent
}

/// An object and its address, held by the heap alone: made on a thread that has ended, so no
/// frame of a live thread ever held either (a dead frame of this thread's could leave the address
/// in a slot a later frame does not overwrite).
private let objectsHeldOnTheHeapOnly = Locked<(object: HeapOnlyObject, addresses: [UInt])?>(nil)

private final class HeapOnlyObject: Sendable {}

private func keepAnObjectOnTheHeapOnly() {
    let made = DispatchSemaphore(value: 0)
    let thread = Thread {
        let object = HeapOnlyObject()
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        objectsHeldOnTheHeapOnly.withLock { $0 = (object, [address]) }
        made.signal()
    }
    thread.start()
    made.wait()
}

@Suite("Threads' stacks named as outside holders")
struct StackHoldersTests {
    @Test(
        "a retained cycle a running function keeps in a local names that function",
        .enabled(if: lg_learned_frame_rules() != 0, "needs x86-64 Linux"),
        .enabled(if: ExternalSymbolizer.find("llvm-symbolizer") != nil, "needs llvm-symbolizer"))
    func localOfTheCallingFunction() throws {
        let parent = makeCycle("held by a local")
        defer { parent.child = nil }
        try withExtendedLifetime(parent) {
            let (snapshot, report) = LeakGraph.findLeaksToDescribe()
            let id = try #require(
                snapshot.objects.first { $0.label == "held by a local" && $0.type.contains("StackHeldParent") }?.id)
            let cycle = try #require(report.cycles.first { $0.objects.contains(id) })
            #expect(!cycle.leaked)
            let names = snapshot.object(id)?.outsideHolders ?? []
            #expect(
                names.contains { $0.contains("a local in") && $0.contains("localOfTheCallingFunction") }, "\(names)")
            #expect(
                LeakTrace.describe(snapshot, report: report, objects: Set(cycle.objects)).contains(
                    "(held by a local in"))
        }
    }

    @Test("a retained cycle another thread keeps on its stack names that thread")
    func stackOfABlockedThread() throws {
        let parked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holderID = Locked("")
        let thread = Thread {
            // "<pid>/task/<tid>": the thread's id, as the name gives it. (Its name is whatever
            // the kernel has: Foundation does not always pass a Thread's name on.)
            let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
            holderID.withLock { $0 = String(path.split(separator: "/").last ?? "") }
            let parent = makeCycle("held by a blocked thread")
            withExtendedLifetime(parent) {
                parked.signal()
                release.wait()
            }
            parent.child = nil
        }
        thread.start()
        parked.wait()
        defer { release.signal() }
        // Looked at once the thread is blocked in the kernel (a running thread shows no stack
        // pointer).
        let tid = holderID.withLock { $0 }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline,
            (try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8))?.hasPrefix("running")
                ?? true
        {
            usleep(1_000)
        }
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        let id = try #require(
            snapshot.objects.first { $0.label == "held by a blocked thread" && $0.type.contains("StackHeldParent") }?.id
        )
        let cycle = try #require(report.cycles.first { $0.objects.contains(id) })
        #expect(!cycle.leaked)
        let names = snapshot.object(id)?.outsideHolders ?? []
        #expect(!tid.isEmpty)
        #expect(names.contains { $0.hasPrefix("the stack of thread '") && $0.hasSuffix(" (tid \(tid))") }, "\(names)")
    }

    @Test("nothing is named for an object no stack holds")
    func noStackNoName() {
        keepAnObjectOnTheHeapOnly()
        defer { objectsHeldOnTheHeapOnly.withLock { $0 = nil } }
        let addresses = objectsHeldOnTheHeapOnly.withLock { $0?.addresses } ?? []
        #expect(!addresses.isEmpty)
        #expect(StackHolders.names(holding: addresses).isEmpty)
    }
}
