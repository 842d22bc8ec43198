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
    return [
        plain("process-alloc-passive", "recording off (hooks linked)", recording: false, stacks: .off),
        plain("process-alloc-nostacks", "recording on, stacks off", recording: true, stacks: .off),
        plain("process-alloc-stacks32", "recording on, stacks all:32", recording: true, stacks: .all(depth: 32)),
        closure("process-closure-passive", "recording off (hooks linked)", recording: false),
        closure("process-closure-nostacks", "recording on, stacks off", recording: true),
    ]
}
