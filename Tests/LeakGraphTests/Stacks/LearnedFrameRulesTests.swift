import CLeakGraphSupport
import Foundation
import Synchronization
import Testing

/// The learned-rules walk (and the reuse of a thread's previous walk) must give exactly the return
/// addresses libunwind gives, from every kind of frame Swift code makes.
@Suite("Learned frame rules")
struct LearnedFrameRulesTests {
    @Test("on x86-64 Linux with libunwind the rules are in use")
    func rulesInUse() {
        #if os(Linux) && arch(x86_64)
            #expect(lg_unwinder_kind() != 1 || lg_learned_frame_rules() == 1)
        #endif
    }

    @Test("the walk gives libunwind's frames through recursion, generics, closures and varied frame sizes")
    func agreesWithLibunwind() {
        guard lg_learned_frame_rules() == 1 else { return }
        var disagreements: [String] = []
        for depth in 0..<48 {
            // Twice: the first capture may learn, the second walks with the rules (and the memo).
            for _ in 0..<2 {
                disagreements += Recursion(depth: depth).run()
            }
        }
        #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
    }

    @Test("a thread other than the main one gets its bounds from the system")
    func otherThreadStackBounds() {
        guard lg_learned_frame_rules() == 1 else { return }
        let result = Mutex<(way: Int32, inside: Bool)>((-2, false))
        let done = DispatchSemaphore(value: 0)
        Thread {
            var low: UInt = 0
            var high: UInt = 0
            var systemLow: UInt = 0
            var systemHigh: UInt = 0
            let way = lg_stack_bounds_for_tests(&low, &high, &systemLow, &systemHigh)
            result.withLock { $0 = (way, low == systemLow && high == systemHigh && low < high) }
            done.signal()
        }.start()
        done.wait()
        #expect(result.withLock { $0.way } == 0)
        #expect(result.withLock { $0.inside })
    }

    @Test("a walk that shares only its outer frames with the thread's last walk still agrees")
    func sharedOuterFrames() {
        guard lg_learned_frame_rules() == 1 else { return }
        var disagreements: [String] = []
        // Alternate shapes so that each capture joins the previous one at a different frame.
        for round in 0..<200 {
            let depth = (round * 7) % 23
            disagreements += Recursion(depth: depth, wide: round % 3 == 0).run()
        }
        #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
    }

    @Test("threads and tasks each walk their own stack and agree")
    func concurrentWalks() async {
        guard lg_learned_frame_rules() == 1 else { return }
        let fromThreads = Mutex<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        for seed in 0..<4 {
            Thread {
                var found: [String] = []
                for round in 0..<100 { found += Recursion(depth: (round * 5 + seed) % 29, wide: round % 2 == 1).run() }
                fromThreads.withLock { $0 += found }
                finished.signal()
            }.start()
        }
        let fromTasks = await withTaskGroup(of: [String].self) { group in
            for seed in 0..<8 {
                group.addTask {
                    var found: [String] = []
                    for round in 0..<50 { found += Recursion(depth: (round + seed) % 19, wide: seed % 2 == 0).run() }
                    return found
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        for _ in 0..<4 { await Task.detached { finished.wait() }.value }
        let all = fromTasks + fromThreads.withLock { $0 }
        #expect(all.count == 0, "\(all.prefix(3))")
    }

    @Test("a capture repeated from one place takes the walk it remembered, with libunwind's frames")
    func repeatedCapture() {
        guard lg_learned_frame_rules() == 1 else { return }
        // One thread throughout (no suspension point): the count is this thread's.
        let before = lg_stack_repeats_on_this_thread()
        var disagreements: [String] = []
        for _ in 0..<20 { disagreements += Recursion(depth: 12).run() }
        #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
        #expect(lg_stack_repeats_on_this_thread() - before >= 15)
        // Frame 0 too: every capture from one call site equals the first, whether walked or not,
        // and with the innermost frames skipped, the rest of it.
        var first: [UInt] = []
        for skip in [0, 0, 0, 1, 1, 1, 2, 2, 2, 0] {
            let frames = captureFromOneSite(skip: skip)
            if first.isEmpty { first = frames }
            #expect(frames == Array(first.dropFirst(skip)), "skip \(skip)")
        }
    }

    @Test("the same start reached from another caller is walked again, not taken from the other's walk")
    func sameStartOtherCaller() {
        guard lg_learned_frame_rules() == 1 else { return }
        // Both callers go through one helper with identical frames, and are called from one call
        // instruction (an indirect call): the helper's frame (where a remembered walk starts) is at
        // the same return address and stack pointer either way, and the one word that differs is
        // the return address into the caller.
        let callers: [() -> [String]] = [captureFromCallerA, captureFromCallerB]
        let before = lg_stack_repeats_on_this_thread()
        var disagreements: [String] = []
        for round in 0..<40 {
            disagreements += callers[round % 2]()
        }
        #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
        // Both walks were remembered and answered, each for its own caller.
        #expect(lg_stack_repeats_on_this_thread() - before >= 30)
    }

    @Test("a stack shorter than the frames asked for is remembered with its end, on a thread of its own")
    func shortStackOnAThread() {
        guard lg_learned_frame_rules() == 1 else { return }
        let result = Mutex<(disagreements: [String], repeats: UInt64)>(([], 0))
        let finished = DispatchSemaphore(value: 0)
        Thread {
            // A new thread's stack is a few frames deep: the 40 frames asked for are never all there.
            let before = lg_stack_repeats_on_this_thread()
            var found: [String] = []
            for _ in 0..<20 { found += Recursion(depth: 1).run() }
            let repeats = lg_stack_repeats_on_this_thread() - before
            result.withLock { $0 = (found, repeats) }
            finished.signal()
        }.start()
        finished.wait()
        let (disagreements, repeats) = result.withLock { $0 }
        #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
        #expect(repeats >= 15)
    }

    @Test("a repeated capture's check finds one changed byte in any word it compares, the last pair's too")
    func repeatCheckFindsEveryChange() {
        guard lg_learned_frame_rules() == 1 else { return }
        // Words scattered over a buffer as a walk's reads are over a stack (not in order, some
        // side by side); the count is odd before the last word is repeated, as remembering pads.
        let stack = UnsafeMutablePointer<UInt>.allocate(capacity: 64)
        defer { stack.deallocate() }
        for index in 0..<64 { stack[index] = UInt(index) &* 0x9E37_79B9_7F4A_7C15 }
        var slots: [Int] = [3, 4, 40, 7, 8, 63, 20, 21, 0]
        slots.append(slots[slots.count - 1])
        let offsets = slots.map { UInt32($0 * MemoryLayout<UInt>.stride) }
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: slots.count)
        defer { words.deallocate() }
        #expect(Int(bitPattern: words) % 16 == 0)
        for (index, slot) in slots.enumerated() { words[index] = stack[slot] }
        let base = UInt(bitPattern: stack)
        func holds() -> Int32 { lg_repeat_words_hold_for_tests(base, offsets, words, Int32(slots.count)) }
        #expect(holds() == 1)
        var missed: [String] = []
        for slot in Set(slots) {
            for byte in 0..<MemoryLayout<UInt>.size {
                let original = stack[slot]
                stack[slot] ^= UInt(1) << (byte * 8)
                if holds() != 0 { missed.append("word \(slot) byte \(byte)") }
                stack[slot] = original
            }
        }
        #expect(missed.isEmpty, "\(missed)")
        // A word no read names may change freely.
        stack[30] &+= 1
        #expect(holds() == 1)
    }

    @Test("skipping a frame drops exactly the innermost one")
    func skipping() {
        let (full, skipped) = captureWithAndWithoutSkip()
        #expect(full.count > 3)
        #expect(full == Array(skipped.prefix(full.count)), "\(full) \(skipped)")
    }
}

/// Compares the two capture paths at the bottom of a recursion whose frames vary in size (a local
/// buffer sized by the depth), in generic and non-generic functions, inside closures.
struct Recursion {
    var depth: Int
    var wide = false

    func run() -> [String] {
        wide ? generic(depth, payload: [depth, depth + 1]) : plain(depth)
    }

    @inline(never)
    private func plain(_ remaining: Int) -> [String] {
        if remaining == 0 { return compareCaptures() }
        if remaining % 3 == 0 {
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 + remaining * 24) { buffer in
                buffer.initialize(repeating: UInt8(truncatingIfNeeded: remaining))
                return plain(remaining - 1) + (buffer[0] == 255 ? ["unreachable"] : [])
            }
        }
        return [1].flatMap { _ in plain(remaining - 1) }
    }

    @inline(never)
    private func generic<T>(_ remaining: Int, payload: T) -> [String] {
        if remaining == 0 { return compareCaptures() }
        if remaining % 2 == 0 { return generic(remaining - 1, payload: (payload, remaining)) }
        return plain(remaining - 1)
    }
}

@inline(never)
private func compareCaptures() -> [String] {
    var fast = [UInt](repeating: 0, count: 40)
    var unwinder = [UInt](repeating: 0, count: 40)
    let fastCount = Int(lg_capture_stack(&fast, 40, 0))
    let unwinderCount = Int(lg_capture_stack_with_unwinder(&unwinder, 40, 0))
    // Frame 0 is the call site in this function (two different sites); the rest must match.
    guard fastCount >= 1, unwinderCount >= 1 else {
        return ["no frames: rules \(fastCount), libunwind \(unwinderCount)"]
    }
    let a = Array(fast[1..<fastCount])
    let b = Array(unwinder[1..<unwinderCount])
    if a == b { return [] }
    let hex = { (frames: [UInt]) in frames.prefix(8).map { String($0, radix: 16) }.joined(separator: " ") }
    return ["rules (\(fastCount)): \(hex(a)) vs libunwind (\(unwinderCount)): \(hex(b))"]
}

@inline(never)
private func captureFromCallerA() -> [String] { captureThroughHelper() }

@inline(never)
private func captureFromCallerB() -> [String] { captureThroughHelper() }

@inline(never)
private func captureThroughHelper() -> [String] { compareCaptures() }

/// The frames of one capture from one call site (frame 0 is that site), `skip` innermost left out.
@inline(never)
private func captureFromOneSite(skip: Int) -> [UInt] {
    var frames = [UInt](repeating: 0, count: 30)
    let count = Int(lg_capture_stack(&frames, Int32(30 - skip), Int32(skip)))
    return Array(frames[0..<count])
}

@inline(never)
private func captureWithAndWithoutSkip() -> ([UInt], [UInt]) {
    var full = [UInt](repeating: 0, count: 30)
    var skipped = [UInt](repeating: 0, count: 30)
    let (fullCount, skippedCount) = twoCapturesFromOneFrame(&full, &skipped)
    return (Array(full[1..<fullCount]), Array(skipped[0..<skippedCount]))
}

/// Both captures from the same frame, the second skipping one: full[1...] (past the call site,
/// which differs between the two calls) equals skipped[0...].
@inline(never)
private func twoCapturesFromOneFrame(_ full: inout [UInt], _ skipped: inout [UInt]) -> (Int, Int) {
    let fullCount = Int(lg_capture_stack(&full, 30, 0))
    let skippedCount = Int(lg_capture_stack(&skipped, 30, 1))
    return (fullCount, skippedCount)
}
