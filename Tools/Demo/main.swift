// The LeakGraph demo: runs the classic reactive leaks and their fixed versions, prints what the
// detector found, and writes JSON, dot and SVG (and, through the leakgraph tool, an HTML
// report) to the output folder (default ./leakgraph-out).
import Foundation
import LeakGraph
import LeakGraphRx

let outputDirectory = CommandLine.arguments.dropFirst().first ?? "leakgraph-out"

/// What a scenario left: its leaked cycles, how many of its objects are alive, those that can
/// never finish, and the analysis they come from.
struct Outcome {
    var leaked: [Cycle]
    var alive: Int
    var canNeverFinish: [UInt64]
    var snapshot: GraphSnapshot
    var dominators: Dominators
}

@inline(never)
func run(_ body: () -> Void) -> Outcome {
    let checkpoint = LeakGraph.checkpoint()
    body()
    let (raw, report) = LeakGraph.findLeaks()
    let snapshot = Symbolicator.symbolicate(raw)
    let mine = Set(snapshot.objects(since: checkpoint).map(\.id))
    let cycles = report.leakedCycles.filter { $0.objects.allSatisfy(mine.contains) }
    return Outcome(
        leaked: cycles, alive: mine.count, canNeverFinish: report.canNeverFinish.filter(mine.contains),
        snapshot: snapshot, dominators: Dominators(snapshot, report: report))
}

/// Writes `scenario-N.dot` (and `.svg`) with just that scenario's leaked cycles.
func writeScenarioGraph(number: Int, title: String, cycles: [Cycle], snapshot: GraphSnapshot) {
    let ids = Set(cycles.flatMap(\.objects))
    let subgraph = GraphSnapshot(
        objects: snapshot.objects.filter { ids.contains($0.id) },
        edges: snapshot.edges.filter { ids.contains($0.from) && ids.contains($0.to) }, stacks: snapshot.stacks)
    let report = LeakReport(cycles: cycles, leakedObjectIDs: ids)
    let dot = DotExporter.render(
        subgraph, report: report, options: .init(scope: .everything, title: "\(number). \(title)"))
    let stem = "\(outputDirectory)/scenario-\(number)"
    do {
        try SafeFileWriter.createDirectory(outputDirectory)
        try SafeFileWriter.write(dot, to: stem + ".dot", replace: true)
        if Graphviz.dotExecutable != nil {
            try Graphviz.render(dotFile: stem + ".dot", to: stem + ".svg")
            print("   picture: \(stem).svg")
        } else {
            print("   graph:   \(stem).dot (\(Graphviz.installHint))")
        }
    } catch {
        print("   (could not write \(stem): \(error))")
    }
}

var failures = 0
print("LeakGraph demo: classic reactive leaks, each followed by its fix\n")
for (index, scenario) in Scenarios.all.enumerated() {
    print("\(index + 1). \(scenario.title)")
    let leaking = run(scenario.leaking)
    if leaking.leaked.isEmpty {
        print("   ✗ expected a leak (\(scenario.mistake)) but found none")
        failures += 1
    } else {
        for cycle in leaking.leaked {
            print("   leaked: \(cycle.loopDescription)")
            let keptAlive = LeakTrace.keptAlive(by: cycle, leaking.dominators)
            print("           " + LeakTrace.verdict(for: cycle, in: leaking.snapshot, keptAlive: keptAlive))
            print("           " + LeakTrace.culpritLine(for: cycle, leaking.dominators, leaking.snapshot))
        }
        print("   cause:  \(scenario.mistake)")
        print("   " + LeakTrace.fixLine(for: leaking.leaked[0], in: leaking.snapshot))
        writeScenarioGraph(number: index + 1, title: scenario.title, cycles: leaking.leaked, snapshot: leaking.snapshot)
    }
    let fixed = run(scenario.fixed)
    if fixed.alive == 0 {
        print("   fixed version: nothing left alive ✓\n")
    } else {
        print("   ✗ fixed version left \(fixed.alive) object(s) alive\n")
        failures += 1
    }
}

// A subscription no cycle detector calls leaked: retained by a long-lived bag, yet nothing can
// ever send it an event. The sessions stay alive to the end, as a program's would, so the dump
// and the reports below show it too.
var sessions: [AppSession] = []
do {
    let scenario = LifecycleScenario()
    let number = Scenarios.all.count + 1
    print("\(number). \(scenario.title)")
    let leaking = run { sessions.append(scenario.leaking()) }
    if leaking.canNeverFinish.isEmpty {
        print("   ✗ expected a subscription that can never finish but found none")
        failures += 1
    } else {
        let names = leaking.canNeverFinish.compactMap { leaking.snapshot.object($0)?.displayName }
        print("   can never finish: " + names.joined(separator: ", "))
        print(
            "           retained, not leaked (the session's DisposeBag holds it), yet nothing outside can ever send it")
        print("           an event or a completion: it ends only when the session does.")
        print("   cause:  \(scenario.mistake)")
        print("   Fix: \(scenario.fix)")
    }
    let fixed = run { sessions.append(scenario.fixed()) }
    if fixed.canNeverFinish.isEmpty {
        print("   fixed version: the subscription can still get events ✓\n")
    } else {
        print("   ✗ fixed version: \(fixed.canNeverFinish.count) object(s) can never finish\n")
        failures += 1
    }
}

do {
    let stem = "leakgraph-demo"
    let directory = outputDirectory
    try SafeFileWriter.createDirectory(directory)
    // The demo owns these files: rerunning it replaces them.
    for suffix in [".json", ".dot", ".svg"] {
        try? FileManager.default.removeItem(atPath: "\(directory)/\(stem)\(suffix)")
    }
    let (files, report) = try LeakGraph.writeDump(to: directory, name: stem, renderSVG: true)
    print("Graph: \(report.leakedCycles.count) leaked cycle(s), \(report.leakedObjectIDs.count) leaked object(s)")
    print("Wrote \(files.json)")
    print("Wrote \(files.dot)")
    if let svg = files.svg {
        print("Wrote \(svg)")
    } else {
        print("(no SVG: \(Graphviz.installHint))")
    }
} catch {
    print("leakgraph-demo: \(error.description)")
    exit(2)
}
withExtendedLifetime(sessions) {}
exit(failures == 0 ? 0 : 1)
