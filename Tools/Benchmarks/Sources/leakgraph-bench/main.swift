// leakgraph-bench: LeakGraph's benchmarks beside OpenCombine, one small harness.
//
//   leakgraph-bench                      every case, each in its own process, 5 timed runs + 1 warm-up,
//                                        median per operation; prints a markdown table
//   leakgraph-bench --quick              every case with tiny sizes, 1 run (a smoke test: seconds)
//   leakgraph-bench --case NAME [--iterations N] [--runs R]
//                                        one case in this process (1 run by default, no warm-up), so
//                                        `instructions-per-op 1000 3000 leakgraph-bench --case NAME
//                                        --iterations {n}` gives instructions per operation
//   leakgraph-bench --list               case names
//   --quiet                              with --case: print nothing (instruction counting: the table's
//                                        value-dependent formatting would otherwise add a different
//                                        start-up/shutdown cost at each iteration count)
//   --json PATH                          also write the results as JSON
//   --filter TEXT                        only cases whose name contains TEXT
import Foundation

/// One case's result, as printed and written to JSON.
struct CaseResult: Codable {
    var name: String
    var group: String
    var variant: String
    var unit: String
    var iterations: Int
    var runs: Int
    /// Median over the runs of wall time per operation, in nanoseconds.
    var medianNanoseconds: Double
    /// Fastest run's wall time per operation, in nanoseconds.
    var minimumNanoseconds: Double
    /// Extra figures from the median run.
    var metrics: [String: Double]
}

struct Options {
    var cases: [String] = []
    var filter: String?
    var iterations: Int?
    var runs: Int?
    var warmup = false
    var quick = false
    var list = false
    var quiet = false
    var json: String?
    var resultFile: String?
}

func usage() -> Never {
    let text = """
        usage: leakgraph-bench [--quick] [--case NAME ...] [--filter TEXT] [--iterations N] [--runs R]
                               [--warmup] [--quiet] [--json PATH] [--list]
        """
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(2)
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    func value() -> String {
        guard let next = arguments.popFirst() else { usage() }
        return next
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--case": options.cases.append(value())
        case "--filter": options.filter = value()
        case "--iterations": guard let n = Int(value()), n > 0 else { usage() }; options.iterations = n
        case "--runs": guard let n = Int(value()), n > 0 else { usage() }; options.runs = n
        case "--warmup": options.warmup = true
        case "--quick": options.quick = true
        case "--list": options.list = true
        case "--quiet": options.quiet = true
        case "--json": options.json = value()
        case "--result-file": options.resultFile = value()
        case "--help", "-h": usage()
        default:
            FileHandle.standardError.write(Data("leakgraph-bench: unknown argument \(argument)\n".utf8))
            usage()
        }
    }
    return options
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    if sorted.isEmpty { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Runs one case in this process.
func run(_ benchCase: BenchCase, iterations: Int, runs: Int, warmup: Bool, quick: Bool) -> CaseResult {
    if warmup {
        _ = benchCase.body(Context(iterations: max(1, min(iterations, benchCase.quickIterations)), quick: quick))
    }
    var samples: [Sample] = []
    for _ in 0..<runs { samples.append(benchCase.body(Context(iterations: iterations, quick: quick))) }
    let perOp = samples.map { $0.seconds / Double(max($0.operations, 1)) * 1e9 }
    let medianValue = median(perOp)
    let medianSample = samples[perOp.firstIndex(of: perOp.sorted()[perOp.count / 2]) ?? 0]
    // Memory figures are registry growth: only the first timed run grows the tables.
    var metrics = medianSample.metrics
    for (key, value) in samples[0].metrics where key.hasPrefix("bytes/") || key.hasPrefix("unique") {
        metrics[key] = value
    }
    return CaseResult(
        name: benchCase.name, group: benchCase.group, variant: benchCase.variant, unit: benchCase.unit,
        iterations: iterations, runs: runs, medianNanoseconds: medianValue, minimumNanoseconds: perOp.min() ?? .nan,
        metrics: metrics)
}

/// Runs one case in a child process (fresh registry, no interference between cases).
func runInChild(_ benchCase: BenchCase, iterations: Int, runs: Int, warmup: Bool, quick: Bool) -> CaseResult? {
    let resultPath = NSTemporaryDirectory() + "leakgraph-bench-\(getpid())-\(benchCase.name).json"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    var arguments = [
        "--case", benchCase.name, "--iterations", "\(iterations)", "--runs", "\(runs)", "--result-file", resultPath,
    ]
    if warmup { arguments.append("--warmup") }
    if quick { arguments.append("--quick") }
    process.arguments = arguments
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        FileHandle.standardError.write(Data("leakgraph-bench: cannot run \(benchCase.name): \(error)\n".utf8))
        return nil
    }
    defer { try? FileManager.default.removeItem(atPath: resultPath) }
    guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: resultPath),
        let result = try? JSONDecoder().decode(CaseResult.self, from: data)
    else {
        FileHandle.standardError.write(
            Data("leakgraph-bench: \(benchCase.name) failed (status \(process.terminationStatus))\n".utf8))
        return nil
    }
    return result
}

func formatNanoseconds(_ value: Double) -> String {
    if value.isNaN { return "–" }
    if value >= 1e9 { return String(format: "%.2f s", value / 1e9) }
    if value >= 1e6 { return String(format: "%.2f ms", value / 1e6) }
    if value >= 1e4 { return String(format: "%.1f µs", value / 1e3) }
    if value >= 1e3 { return String(format: "%.2f µs", value / 1e3) }
    return String(format: "%.1f ns", value)
}

func formatMetrics(_ metrics: [String: Double]) -> String {
    metrics.sorted { $0.key < $1.key }.map { key, value in
        value == value.rounded() && abs(value) < 1e12 ? "\(key) \(Int(value))" : String(format: "%@ %.1f", key, value)
    }.joined(separator: ", ")
}

func printTable(_ results: [CaseResult]) {
    print("| case | variant | per | iterations × runs | median | min | other |")
    print("|---|---|---|---|---:|---:|---|")
    var lastGroup = ""
    for result in results {
        if result.group != lastGroup {
            print("| **\(result.group)** | | | | | | |")
            lastGroup = result.group
        }
        print(
            "| `\(result.name)` | \(result.variant) | \(result.unit) | \(result.iterations) × \(result.runs) | "
                + "\(formatNanoseconds(result.medianNanoseconds)) | \(formatNanoseconds(result.minimumNanoseconds)) | "
                + "\(formatMetrics(result.metrics)) |")
    }
}

let options = parseOptions()
_ = defaultStackMode  // read the process default before any case changes the mode
let all =
    allocationCases() + stackCaptureCases() + processTrackingCases() + processScaleCases() + edgeCases() + rxCases()
    + memoryCases()
    + graphCases() + scalingCases()
    + symbolicationCases() + virtualTimeCases() + rxOperatorCases()

if options.list {
    for benchCase in all { print("\(benchCase.name)\t\(benchCase.group) — \(benchCase.variant)") }
    exit(0)
}

var selected = all
if !options.cases.isEmpty {
    let unknown = options.cases.filter { name in !all.contains { $0.name == name } }
    if !unknown.isEmpty {
        FileHandle.standardError.write(
            Data("leakgraph-bench: unknown case \(unknown.joined(separator: ", ")) (see --list)\n".utf8))
        exit(2)
    }
    selected = options.cases.map { name in all.first { $0.name == name }! }
}
if let filter = options.filter { selected = selected.filter { $0.name.contains(filter) } }

var results: [CaseResult] = []
if options.cases.count == 1 {
    // One case, in this process: the mode instruction counting uses.
    let benchCase = selected[0]
    let iterations = options.iterations ?? (options.quick ? benchCase.quickIterations : benchCase.iterations)
    let result = run(
        benchCase, iterations: iterations, runs: options.runs ?? 1, warmup: options.warmup, quick: options.quick)
    results.append(result)
    if let path = options.resultFile {
        let data = try JSONEncoder().encode(result)
        try data.write(to: URL(fileURLWithPath: path))
    } else if !options.quiet {
        printTable(results)
    }
} else {
    var failed = 0
    for benchCase in selected {
        let iterations = options.iterations ?? (options.quick ? benchCase.quickIterations : benchCase.iterations)
        let runs = options.runs ?? (options.quick ? 1 : 5)
        FileHandle.standardError.write(Data("running \(benchCase.name) (\(iterations) × \(runs))\n".utf8))
        if let result = runInChild(
            benchCase, iterations: iterations, runs: runs, warmup: !options.quick, quick: options.quick)
        {
            results.append(result)
        } else {
            failed += 1
        }
    }
    printTable(results)
    if failed > 0 {
        FileHandle.standardError.write(Data("leakgraph-bench: \(failed) case(s) failed\n".utf8))
    }
    if let path = options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(results).write(to: URL(fileURLWithPath: path))
    }
    if failed > 0 { exit(1) }
}
if options.cases.count == 1, let path = options.json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(results).write(to: URL(fileURLWithPath: path))
}
