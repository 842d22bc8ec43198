import CLeakGraphSupport
import Dispatch
import Foundation
import LeakGraph

/// Where the closure cases store each new closure (the store frees the previous context).
nonisolated(unsafe) var closureSlot: (() -> Int)?

/// Whole-process tracking's allocation cost: the same plain class and closure allocated with
/// recording off (the passive hooks every program that links LeakGraph has) and on.
func processTrackingCases() -> [BenchCase] {
    func plain(_ name: String, _ variant: String, recording: Bool, stacks: StackCaptureMode) -> BenchCase {
        BenchCase(
            name: name, group: "whole-process alloc + free (plain class)", variant: variant, unit: "object",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: stacks)
            if recording { LeakGraph.trackAllObjects() }
            return atDepth(benchDepth) {
                measure(context.iterations) {
                    for _ in 0..<context.iterations { allocSlot = PlainLeaf() }
                    allocSlot = nil
                }
            }
        }
    }
    func closure(_ name: String, _ variant: String, recording: Bool) -> BenchCase {
        BenchCase(
            name: name, group: "whole-process alloc + free (closure context)", variant: variant, unit: "closure",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            if recording { LeakGraph.trackAllObjects() }
            return atDepth(benchDepth) {
                measure(context.iterations) {
                    for index in 0..<context.iterations {
                        let captured = PlainLeaf()
                        captured.slot = Int32(truncatingIfNeeded: index)
                        closureSlot = { Int(captured.slot) &+ index }
                    }
                    closureSlot = nil
                }
            }
        }
    }
    /// N objects made and kept, then all freed: the record table holds N entries, so an object's
    /// home slot matters (objects of one size class sit at one stride apart).
    func live<Object: AnyObject>(
        _ name: String, _ variant: String, recording: Bool, make: @escaping () -> Object
    ) -> BenchCase {
        BenchCase(
            name: name, group: "whole-process alloc + free, N objects alive at once", variant: variant,
            unit: "object", iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            if recording { LeakGraph.trackAllObjects() }
            var objects: [Object] = []
            objects.reserveCapacity(context.iterations)
            return measure(context.iterations) {
                for _ in 0..<context.iterations { objects.append(make()) }
                objects.removeAll(keepingCapacity: true)
            }
        }
    }
    /// Goal 1's churn (issue 33): rounds of a holder, ten small objects made at ten lines and
    /// kept in its array, and a closure capturing it, all freed at the round's end; run where
    /// the benchmark's loop is (a program's main loop, about ten frames deep) or `depth` frames
    /// further down (a test's, under the test runner's frames).
    func churn(
        _ name: String, _ variant: String, recording: Bool, stacks: StackCaptureMode, depth: Int = 0
    ) -> BenchCase {
        BenchCase(
            name: name, group: "whole-process churn (a round: 12 objects and an array)", variant: variant,
            unit: "round", iterations: 300_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: stacks)
            if recording { LeakGraph.trackAllObjects() }
            return atDepth(depth) {
                measure(context.iterations) {
                    for round in 0..<context.iterations { churnRound(round) }
                    closureSlot = nil
                }
            }
        }
    }
    return [
        churn("process-churn-passive", "recording off (hooks linked)", recording: false, stacks: .off),
        churn("process-churn-nostacks", "recording on, stacks off", recording: true, stacks: .off),
        churn("process-churn-stacks", "recording on, default stacks", recording: true, stacks: defaultStackMode),
        churn(
            "process-churn-stacks-deep", "recording on, default stacks, 40 frames further down", recording: true,
            stacks: defaultStackMode, depth: benchDepth),
        plain("process-alloc-passive", "recording off (hooks linked)", recording: false, stacks: .off),
        plain("process-alloc-nostacks", "recording on, stacks off", recording: true, stacks: .off),
        plain("process-alloc-stacks32", "recording on, stacks all:32", recording: true, stacks: .all(depth: 32)),
        closure("process-closure-passive", "recording off (hooks linked)", recording: false),
        closure("process-closure-nostacks", "recording on, stacks off", recording: true),
        live("process-live-32b-passive", "32-byte allocations, recording off", recording: false) { PlainLeaf() },
        live("process-live-32b", "32-byte allocations, recording on, stacks off", recording: true) { PlainLeaf() },
        live("process-live-64b-passive", "64-byte allocations, recording off", recording: false) { FourWords() },
        live("process-live-64b", "64-byte allocations, recording on, stacks off", recording: true) { FourWords() },
    ]
}

/// Holds one churn round's objects.
final class ChurnHolder {
    var items: [PlainLeaf] = []
}

/// One round of the churn: ten allocation sites, as a program's ten lines making objects.
@inline(never)
func churnRound(_ round: Int) {
    let holder = ChurnHolder()
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    holder.items.append(PlainLeaf())
    closureSlot = { holder.items.count &+ round }
}

/// An object of 48 bytes (a header and four words): malloc gives it a 64-byte chunk.
final class FourWords {
    var first = 0
    var second = 0
    var third = 0
    var fourth = 0
}

/// A plain class with one strong reference, for the whole-process graph cases.
final class PlainPairNode {
    var other: PlainPairNode?
}

/// Keeps the retained half of the big whole-process graph alive.
nonisolated(unsafe) var retainedPlainNodes: [PlainPairNode] = []

/// Records `count` plain objects with whole-process tracking: half in leaked pairs, half in pairs
/// `retainedPlainNodes` holds.
private func makePlainPairs(_ count: Int) {
    configure(tracking: true, stacks: .off)
    LeakGraph.trackAllObjects()
    for index in 0..<count / 2 {
        let a = PlainPairNode()
        let b = PlainPairNode()
        a.other = b
        b.other = a
        if index % 2 == 0 { retainedPlainNodes.append(a) }
    }
}

/// Whole-process tracking at scale: memory per recorded object, and snapshot + verdicts over N
/// plain objects (half in leaked pairs, half in pairs a global array holds); 2 threads allocating.
func processScaleCases() -> [BenchCase] {
    [
        BenchCase(
            name: "process-memory", group: "whole-process records", variant: "bytes per live recorded object",
            unit: "object", iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            LeakGraph.trackAllObjects()
            let before = LeakGraph.registryByteCount
            var objects: [PlainLeaf] = []
            objects.reserveCapacity(context.iterations)
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations { objects.append(PlainLeaf()) }
            }
            sample.metrics["bytes/object"] =
                Double(LeakGraph.registryByteCount - before) / Double(context.iterations)
            blackHole(objects)
            return sample
        },
        BenchCase(
            name: "process-find-leaks", group: "whole-process snapshot + verdicts",
            variant: "findLeaks over N plain objects (N/4 leaked pairs, N/4 held pairs)", unit: "object",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            makePlainPairs(context.iterations)
            var leaked = 0
            var sample = measure(context.iterations) {
                leaked = LeakGraph.findLeaks().report.leakedObjectIDs.count
            }
            sample.metrics["leaked objects"] = Double(leaked)
            // The first look (the whole process) holds the shard locks longest: measured alone.
            _ = LeakGraph.snapshot()
            var total: UInt64 = 0
            var longest: UInt64 = 0
            lg_process_last_hold_nanoseconds(&total, &longest)
            sample.metrics["shard locks held ms"] = Double(total) / 1e6
            sample.metrics["longest hold ms"] = Double(longest) / 1e6
            return sample
        },
        BenchCase(
            name: "process-snapshot-verdicts", group: "whole-process snapshot + verdicts",
            variant: "one snapshot + LeakDetector.analyze over N plain objects (no confirming look)", unit: "object",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            makePlainPairs(context.iterations)
            var leaked = 0
            var snapshotSeconds = 0.0
            var sample = measure(context.iterations) {
                let start = DispatchTime.now().uptimeNanoseconds
                let snapshot = LeakGraph.snapshot()
                snapshotSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                leaked = LeakDetector.analyze(snapshot).leakedObjectIDs.count
            }
            sample.metrics["leaked objects"] = Double(leaked)
            sample.metrics["snapshot s"] = snapshotSeconds
            return sample
        },
        BenchCase(
            name: "process-two-threads", group: "whole-process alloc + free, 2 threads",
            variant: "recording on, stacks off (wall time; compare process-two-threads-passive)", unit: "object",
            iterations: 4_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            LeakGraph.trackAllObjects()
            return twoThreads(context.iterations)
        },
        BenchCase(
            name: "process-two-threads-passive", group: "whole-process alloc + free, 2 threads",
            variant: "recording off (hooks linked)", unit: "object", iterations: 4_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            return twoThreads(context.iterations)
        },
    ]
}

/// `count` small objects allocated and freed, half on each of two threads.
private func twoThreads(_ count: Int) -> Sample {
    measure(count) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            let thread = Thread {
                var slot: PlainLeaf?
                for _ in 0..<count / 2 { slot = PlainLeaf() }
                blackHole(slot)
                done.signal()
            }
            thread.start()
        }
        done.wait()
        done.wait()
    }
}
