import CLeakGraphSupport
import Foundation
import Synchronization
import Testing

@testable import LeakGraph

/// The runtime's check, as `withoutActuallyEscaping` calls it when its block returns: whether the
/// closure's context is referenced more than once (then it escaped and the program traps).
private func isEscapingClosure(_ context: UnsafeRawPointer) -> Bool {
    lg_is_escaping_closure_for_tests(context) != 0
}

private final class Captured {
    var value = 0
}

private final class SnapshotLoop: Sendable {
    let stop = Atomic(false)
    let snapshots = Atomic(0)
}

/// Runs `body` through `withoutActuallyEscaping`, whose escapable wrapper is a heap object the
/// runtime checks when the block returns.
private func runWithoutEscaping(_ body: () -> Void) {
    withoutActuallyEscaping(body) { escapable in escapable() }
}

/// A whole-process snapshot holds every recorded object while it reads, a closure context in the
/// middle of another thread's `withoutActuallyEscaping` block too (Swift Testing's
/// `#expect(a && b)` in a debug build): the runtime's check then saw two references and trapped.
@Suite(
    "A snapshot's holds and the runtime's escaping-closure check",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct EscapingClosureCheckTests {
    @Test("while a snapshot is in flight, a recorded object it may hold once did not escape; held twice, it did")
    func snapshotHoldsAreAllowedFor() throws {
        let object = Captured()
        let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        try #require(lg_process_is_recorded(UInt(bitPattern: address)) != 0)
        #expect(!isEscapingClosure(address))
        // A snapshot's hold: one reference more.
        let hold = Unmanaged.passUnretained(object).retain()
        defer { hold.release() }
        lg_snapshot_release_began()
        let whileInFlight = isEscapingClosure(address)
        // Two references beyond the snapshots in flight: escaped (the runtime prints its message).
        let second = Unmanaged.passUnretained(object).retain()
        let heldTwice = isEscapingClosure(address)
        second.release()
        lg_snapshot_release_ended()
        #expect(!whileInFlight)
        #expect(heldTwice)
        #expect(isEscapingClosure(address), "no snapshot in flight: the extra reference escaped")
    }

    @Test("withoutActuallyEscaping again and again while another thread takes snapshots: no trap")
    func withoutActuallyEscapingBesideSnapshots() async {
        let loop = SnapshotLoop()
        let snapshotter = Thread {
            while !loop.stop.load(ordering: .relaxed) {
                _ = LeakGraph.snapshot()
                loop.snapshots.add(1, ordering: .relaxed)
            }
        }
        snapshotter.start()
        let captured = Captured()
        let deadline = ContinuousClock.now + .seconds(2)
        var rounds = 0
        while ContinuousClock.now < deadline || loop.snapshots.load(ordering: .relaxed) < 3 {
            // The block lasts a while, so that snapshots often take their holds inside it.
            runWithoutEscaping {
                let start = ContinuousClock.now
                while ContinuousClock.now - start < .microseconds(100) { captured.value &+= 0 }
                captured.value += 1
            }
            rounds += 1
        }
        loop.stop.store(true, ordering: .relaxed)
        while !snapshotter.isFinished { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(captured.value == rounds)
    }
}
