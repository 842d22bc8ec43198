// The adversarial corpus of reference discovery: one scenario per shape of ordinary Swift data
// that used to fool it (shared storage, words that look like addresses, big existentials, deep
// and wide graphs, user code in reflection hooks). Each scenario builds its objects, labelled
// with its name, and drops its local references; the process then exits with dump-at-exit on.
//
//   discovery-corpus <scenario>     run one scenario (LEAKGRAPH_DUMP_DIR=dir writes the dump)
//   discovery-corpus --list         print every scenario with the verdicts it must give (whole process,
//                                   tracked objects only)
//   discovery-corpus --big SHAPE N  build a big graph (ring, list, pairs, generic-closure-pairs, web, document, hub, generic-types,
//                                   suspended-tasks, stream-tasks, task-owners) of
//                                   about N objects, time a snapshot and its analysis, then exit
//                                   (with LEAKGRAPH_DUMP_DIR, the dump at exit is timed by the caller)
//
// The verdict for the scenario's labelled objects: `leaked` (in the dump, every one leaked),
// `retained` (alive, none leaked), `freed` (none alive).
import DiscoveryCorpus
import Foundation
import LeakGraph

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--list" {
    for scenario in Corpus.all { print("\(scenario.name) \(scenario.expected) \(scenario.expectedTrackedOnly)") }
    exit(0)
}
if arguments.first == "--big" {
    let shape = arguments.dropFirst().first ?? "ring"
    let size = Int(arguments.dropFirst(2).first ?? "") ?? 100_000
    let built = ContinuousClock.now
    guard BigGraphs.build(shape, size: size) else {
        FileHandle.standardError.write(Data("discovery-corpus: unknown shape \(shape)\n".utf8))
        exit(2)
    }
    let snapshotStart = ContinuousClock.now
    let snapshot = LeakGraph.snapshot()
    let analysisStart = ContinuousClock.now
    let report = LeakDetector.analyze(snapshot)
    let end = ContinuousClock.now
    print(
        "discovery-corpus: \(shape) \(size): built in \(snapshotStart - built), snapshot of \(snapshot.objects.count) "
            + "objects / \(snapshot.edges.count) edges in \(analysisStart - snapshotStart), analysis in "
            + "\(end - analysisStart): \(report.leakedObjectIDs.count) leaked, \(report.cycles.count) cycle(s)")
    exit(0)
}
guard let name = arguments.first, let scenario = Corpus.all.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("discovery-corpus: unknown scenario; use --list\n".utf8))
    exit(2)
}
scenario.run()
print("discovery-corpus: ran \(scenario.name)")
exit(0)
