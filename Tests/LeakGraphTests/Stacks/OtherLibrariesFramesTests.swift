import CLeakGraphSupport
import Dispatch
import Foundation
import Testing

@testable import LeakGraph

/// Frames that Swift code of this package does not make but the libraries a test suite runs
/// through do: a function without an unwind entry (Foundation's `NSLock.init()`, Dispatch's
/// `DispatchSemaphore(value:)`), an async function's frame. A capture through one must give the
/// frames libunwind gives and, once learned, be walked by the rules, not by libunwind each time
/// (GRDB's suite sent 255,000 captures a run to libunwind whole through such frames).
@Suite("Frames of other libraries")
struct OtherLibrariesFramesTests {
    @Test("a frame without an unwind entry is walked by its frame pointer, once learned, with libunwind's frames")
    func frameWithoutUnwindEntry() {
        guard lg_learned_frame_rules() == 1 else { return }
        // The frames outside are learned first: the walk then meets the frame as a new one among
        // known ones and learns it alone (one libunwind step), as a new call site does.
        #expect(captureAndCompare().disagreement == nil)
        let outcome = outcomeOfCapture(through: .withoutUnwindEntry)
        #expect(outcome.frames > 4, "the walk stopped at the frame: \(outcome.frames) frames")
        #expect(outcome.disagreement == nil, "\(outcome.disagreement ?? "")")
        #expect(outcome.unwinderCaptures == 0, "captures through the frame went to libunwind whole")
    }

    @Test("an async resume function's frame (its CFA 32 bytes above its frame pointer) is walked by the rules")
    func frameRecordBelowTheCFA() {
        guard lg_learned_frame_rules() == 1 else { return }
        let outcome = outcomeOfCapture(through: .recordBelowCFA)
        #expect(outcome.frames > 4, "the walk stopped at the frame: \(outcome.frames) frames")
        #expect(outcome.disagreement == nil, "\(outcome.disagreement ?? "")")
        #expect(outcome.unwinderCaptures == 0, "captures through the frame went to libunwind whole")
    }

    @Test("a realigned frame, whose padding differs from call to call, is left to libunwind and agrees with it")
    func realignedFrame() {
        guard lg_learned_frame_rules() == 1 else { return }
        var outcomes: [ThroughFrameOutcome] = []
        // The stack pointer at the call moves by 16 bytes each time: the realignment to 64 bytes
        // pads by 0, 16, 32 or 48 (a rule learned from one call would be wrong for the others).
        for shift in 0..<8 {
            outcomes.append(
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * shift + 1) { padding in
                    padding.initialize(repeating: 0)
                    return outcomeOfCapture(through: .realigned) + (padding[0] == 1 ? 1 : 0)
                })
        }
        #expect(outcomes.allSatisfy { $0.frames > 4 }, "\(outcomes.map(\.frames))")
        #expect(outcomes.compactMap(\.disagreement) == [])
        #expect(outcomes.allSatisfy { $0.unwinderCaptures > 0 }, "a rule was learned for a realigned frame")
    }

    @Test("a capture in an async function, through its frame, is walked by the rules once learned")
    func asyncFunctionFrame() async {
        guard lg_learned_frame_rules() == 1 else { return }
        let outcome = await asyncCaller(depth: 3)
        #expect(outcome.frames > 3, "\(outcome.frames) frames")
        #expect(outcome.disagreement == nil, "\(outcome.disagreement ?? "")")
        #expect(outcome.unwinderCaptures == 0, "captures through the async frame went to libunwind whole")
    }
}

/// Whole-process tracking captures a stack in every allocation: those made by other libraries'
/// code, through their frames.
@Suite(
    "Allocations in other libraries' frames",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct OtherLibrariesAllocationsTests {
    @Test("Foundation's and Dispatch's allocating initialisers (no unwind entry) are walked by the rules")
    func initialisersWithoutUnwindEntries() {
        guard lg_learned_frame_rules() == 1 else { return }
        var kept: [AnyObject] = []
        for _ in 0..<5 { kept += [NSLock(), DispatchSemaphore(value: 0), DispatchGroup()] }
        let before = lg_unwinder_captures_on_this_thread()
        for _ in 0..<50 { kept += [NSLock(), DispatchSemaphore(value: 0), DispatchGroup()] }
        #expect(lg_unwinder_captures_on_this_thread() - before == 0)
        #expect(kept.count == 165)
    }

    @Test("an allocation in an async function is walked by the rules")
    func allocationInAsyncFunction() async {
        guard lg_learned_frame_rules() == 1 else { return }
        let outcome = await allocateInAsyncFunction(depth: 3)
        #expect(outcome.captures == 0, "\(outcome.captures) of 50 went to libunwind whole")
    }
}

private final class AllocatedInTask {
    var value = 0
}

@inline(never)
private func allocateInAsyncFunction(depth: Int) async -> (captures: UInt64, kept: [AllocatedInTask]) {
    if depth > 0 {
        await Task.yield()
        return await allocateInAsyncFunction(depth: depth - 1)
    }
    var kept: [AllocatedInTask] = []
    for _ in 0..<5 { kept.append(AllocatedInTask()) }
    // No suspension from here: one thread's count.
    let before = lg_unwinder_captures_on_this_thread()
    for _ in 0..<50 { kept.append(AllocatedInTask()) }
    return (lg_unwinder_captures_on_this_thread() - before, kept)
}

struct ThroughFrameOutcome {
    var frames = 0
    var disagreement: String?
    var unwinderCaptures: UInt64 = 0

    /// Keeps a value alive in the caller's frame (the padding that moves the stack pointer).
    static func + (outcome: Self, _: Int) -> Self { outcome }
}

/// The C frames of CLeakGraphSupport's test helpers that captures are made through.
private enum ForeignFrame {
    case withoutUnwindEntry, recordBelowCFA, realigned
}

/// captureAndCompare's outcome, called through `frame`.
@inline(never)
private func outcomeOfCapture(through frame: ForeignFrame) -> ThroughFrameOutcome {
    withUnsafeTemporaryAllocation(of: ThroughFrameOutcome.self, capacity: 1) { slot in
        slot.initialize(repeating: ThroughFrameOutcome())
        let body: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
            context!.assumingMemoryBound(to: ThroughFrameOutcome.self).pointee = captureAndCompare()
        }
        switch frame {
        case .withoutUnwindEntry: lg_call_through_frame_without_unwind_entry(body, slot.baseAddress)
        case .recordBelowCFA: lg_call_through_frame_record_below_cfa(body, slot.baseAddress)
        case .realigned: lg_call_through_realigned_frame(body, slot.baseAddress)
        }
        return slot.moveElement(from: 0)
    }
}

@inline(never)
private func asyncCaller(depth: Int) async -> ThroughFrameOutcome {
    if depth > 0 {
        await Task.yield()
        return await asyncCaller(depth: depth - 1)
    }
    return captureAndCompare()
}

/// A few captures from one place (the first may learn), then one more counted: how many frames it
/// had, whether its frames beyond the call site are libunwind's, and how many captures of this
/// thread libunwind walked whole meanwhile.
@inline(never)
private func captureAndCompare() -> ThroughFrameOutcome {
    var frames = [UInt](repeating: 0, count: 40)
    for _ in 0..<3 { _ = lg_capture_stack(&frames, 40, 0) }
    let before = lg_unwinder_captures_on_this_thread()
    let count = Int(lg_capture_stack(&frames, 40, 0))
    let unwinderCaptures = lg_unwinder_captures_on_this_thread() - before
    var unwinder = [UInt](repeating: 0, count: 40)
    let unwinderCount = Int(lg_capture_stack_with_unwinder(&unwinder, 40, 0))
    var outcome = ThroughFrameOutcome(frames: count, unwinderCaptures: unwinderCaptures)
    // Frame 0 is the call site of each capture (two sites); the rest must match.
    let walked = Array(frames[1..<max(count, 1)])
    let unwound = Array(unwinder[1..<max(unwinderCount, 1)])
    if walked != unwound {
        let hex = { (frames: [UInt]) in frames.prefix(10).map { String($0, radix: 16) }.joined(separator: " ") }
        outcome.disagreement = "rules (\(count)): \(hex(walked)) vs libunwind (\(unwinderCount)): \(hex(unwound))"
    }
    return outcome
}
