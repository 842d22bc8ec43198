import CLeakGraphSupport

/// One 32-frame stack capture, 40 frames deep: the learned frame rules (the default path: the
/// same capture again and again, answered from the walk the thread remembered; and from depths
/// that change every time) and libunwind's `unw_backtrace` alone. Each run first checks that both give the same frames, so the
/// smoke run also checks the rules in an optimised build, where Swift keeps no frame pointers.
func stackCaptureCases() -> [BenchCase] {
    func capture(_ name: String, _ variant: String, _ capture: @escaping (UnsafeMutablePointer<UInt>) -> Int32)
        -> BenchCase
    {
        BenchCase(
            name: name, group: "stack capture, 32 frames", variant: variant, unit: "capture",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            atDepth(benchDepth) {
                checkLearnedRulesAgree()
                var frames = [UInt](repeating: 0, count: 32)
                return frames.withUnsafeMutableBufferPointer { buffer in
                    measure(context.iterations) {
                        var total: Int32 = 0
                        for _ in 0..<context.iterations { total &+= capture(buffer.baseAddress!) }
                        blackHole(total)
                    }
                }
            }
        }
    }
    /// Captures from eight depths in turn: no capture starts where one of the thread's recent
    /// walks started, so none is answered from a remembered walk (each is walked and remembered).
    let varied = BenchCase(
        name: "stack-capture-32-varied", group: "stack capture, 32 frames",
        variant: "learned frame rules, 8 depths in turn (nothing repeats)", unit: "capture",
        iterations: 1_000_000, quickIterations: 1_000
    ) { context in
        atDepth(benchDepth) {
            var frames = [UInt](repeating: 0, count: 32)
            return frames.withUnsafeMutableBufferPointer { buffer in
                measure(context.iterations) {
                    var total: Int32 = 0
                    for index in 0..<context.iterations {
                        total &+= atDepth(index & 7) { lg_capture_stack(buffer.baseAddress!, 32, 0) }
                    }
                    blackHole(total)
                }
            }
        }
    }
    return [
        capture("stack-capture-32", "learned frame rules (default)") { lg_capture_stack($0, 32, 0) },
        varied,
        capture("stack-capture-32-unwinder", "libunwind unw_backtrace alone") {
            lg_capture_stack_with_unwinder($0, 32, 0)
        },
    ]
}

/// Stops the run when the learned rules and libunwind disagree (frame 0 is the call site of each).
@inline(never)
private func checkLearnedRulesAgree() {
    guard lg_learned_frame_rules() == 1 else { return }
    var rules = [UInt](repeating: 0, count: 32)
    var unwinder = [UInt](repeating: 0, count: 32)
    for _ in 0..<3 {
        let ruleCount = Int(lg_capture_stack(&rules, 32, 0))
        let unwinderCount = Int(lg_capture_stack_with_unwinder(&unwinder, 32, 0))
        precondition(
            rules[1..<ruleCount] == unwinder[1..<unwinderCount],
            "learned frame rules disagree with libunwind: \(rules[..<ruleCount]) vs \(unwinder[..<unwinderCount])")
    }
}
