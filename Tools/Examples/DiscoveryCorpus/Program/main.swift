// The adversarial corpus of reference discovery: one scenario per shape of ordinary Swift data
// that used to fool it (shared storage, words that look like addresses, big existentials, deep
// and wide graphs, user code in reflection hooks). Each scenario builds its objects, labelled
// with its name, and drops its local references; the process then exits with dump-at-exit on.
//
//   discovery-corpus <scenario>     run one scenario (LEAKGRAPH_DUMP_DIR=dir writes the dump)
//   discovery-corpus --list         print every scenario with the verdict it must give
//
// The verdict for the scenario's labelled objects: `leaked` (in the dump, every one leaked),
// `retained` (alive, none leaked), `freed` (none alive).
import DiscoveryCorpus
import Foundation
import LeakGraph

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--list" {
    for scenario in Corpus.all { print("\(scenario.name) \(scenario.expected)") }
    exit(0)
}
guard let name = arguments.first, let scenario = Corpus.all.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("discovery-corpus: unknown scenario; use --list\n".utf8))
    exit(2)
}
scenario.run()
print("discovery-corpus: ran \(scenario.name)")
exit(0)
