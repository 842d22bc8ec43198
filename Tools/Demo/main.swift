// The LeakGraph demo: runs the classic reactive leaks and their fixed versions, prints what the
// detector found, and writes JSON, dot and SVG (and, through the leakgraph tool, an HTML
// report) to the output folder (default ./leakgraph-out).
import Foundation
import LeakGraph
import LeakGraphRx

let outputDirectory = CommandLine.arguments.dropFirst().first ?? "leakgraph-out"

@inline(never)
func run(_ body: () -> Void) -> (leaked: [Cycle], alive: Int, snapshot: GraphSnapshot) {
    let checkpoint = LeakGraph.checkpoint()
    body()
    let (raw, report) = LeakGraph.findLeaks()
    let snapshot = Symbolicator.symbolicate(raw)
    let mine = Set(snapshot.objects(since: checkpoint).map(\.id))
    let cycles = report.leakedCycles.filter { $0.objects.allSatisfy(mine.contains) }
    return (cycles, mine.count, snapshot)
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
            print("           " + LeakTrace.verdict(for: cycle, in: leaking.snapshot))
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
exit(failures == 0 ? 0 : 1)
