import Foundation
import LeakGraph

#if canImport(Glibc)
    import Glibc
#endif

/// What a case body is told: how many operations to run and whether this is a smoke run.
struct Context {
    /// Operations to perform (the `--iterations` value).
    let iterations: Int
    /// `--quick`: shrink data sets so the whole suite runs in seconds.
    let quick: Bool

    /// A data-set size, shrunk in quick mode.
    func size(_ full: Int) -> Int { quick ? min(full, 2_000) : full }
}

/// The outcome of one run of a case body.
struct Sample {
    /// Wall time of the measured region, in seconds.
    var seconds: Double
    /// How many operations the measured region performed (usually the iteration count).
    var operations: Int
    /// Extra figures (bytes per object, per-object time...), by name.
    var metrics: [String: Double] = [:]
}

/// One benchmark case.
struct BenchCase {
    /// Unique name, used by `--case`.
    let name: String
    /// What is measured, for the table (one line per group of variants).
    let group: String
    /// `tracking on`, `tracking off`, `OpenCombine`, `plain class`...
    let variant: String
    /// What one operation is.
    let unit: String
    /// Iterations used for the wall-time table.
    let iterations: Int
    /// Iterations used by `--quick`.
    let quickIterations: Int
    /// Runs the case; performs `context.iterations` operations and times them.
    let body: (Context) -> Sample
}

/// Keeps a value observable to the optimiser (prevents dead-code elimination and stack promotion).
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A mutable counter shared with closures, so that events have an observable effect.
final class Counter {
    var value = 0
}

/// Monotonic seconds.
@inline(__always)
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Times `body` (which performs `operations` operations).
@inline(__always)
func measure(_ operations: Int, _ body: () -> Void) -> Sample {
    let start = now()
    body()
    return Sample(seconds: now() - start, operations: operations)
}

/// The stack capture mode in force when the process started (`LEAKGRAPH_STACKS`, default all:32).
let defaultStackMode: StackCaptureMode = LeakGraph.stackCaptureMode

/// Sets tracking and the stack mode for a case (`nil`: the process default).
func configure(tracking: Bool, stacks: StackCaptureMode? = nil) {
    LeakGraph.isEnabled = tracking
    LeakGraph.stackCaptureMode = stacks ?? defaultStackMode
}

/// Runs `body` `depth` frames below the caller, so that stack capture sees a realistic stack
/// (an app's allocation is rarely fewer than 32 frames deep; the benchmark's `main` would be ~8).
@inline(never)
func atDepth<R>(_ depth: Int, _ body: () -> R) -> R {
    if depth <= 0 { return body() }
    let result = atDepth(depth - 1, body)
    blackHole(depth)
    return result
}
