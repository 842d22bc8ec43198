// A tiny program that leaks a two-object cycle, for LeakGraph's own end-to-end tests and as the
// smallest example of dump-at-exit. Run with LEAKGRAPH_DUMP_DIR=some/dir.
//   cycle-example              leaks Parent <-> Child (reported as leaked)
//   cycle-example --hold       keeps Parent in a global (reported as retained)
//   cycle-example --none       makes the pair with a weak back reference (nothing left)
//   cycle-example --busy-exit  leaks the pair, then calls exit(3) from a secondary thread while
//                              four other threads allocate tracked objects
//   cycle-example --stack-cap  caps the stack table at 3 and allocates from 10 call sites
//   cycle-example --many N     also leaks N more pairs (to time detection + dump at exit
//                              against LeakSanitizer's exit scan of the same program)
//   cycle-example --memory     makes and drops 100,000 linked objects three times, printing the
//                              registry's size and live count after each round
//   cycle-example --dump-to D  leaks the pair and calls LeakGraph.dumpAtExit(to: D)
import Foundation
import LeakGraph

let mode = CommandLine.arguments.dropFirst().first ?? "--leak"
makePair(mode: mode)
print("cycle-example: made a pair (\(mode))")

switch mode {
case "--busy-exit":
    busyExit()
case "--stack-cap":
    LeakGraph.stackTableCapacity = LeakGraph.uniqueStackCount + 3
    var kept: [Child] = []
    for depth in 0..<10 { kept.append(allocate(atDepth: depth)) }
    print("cycle-example: unique stacks \(LeakGraph.uniqueStackCount), capacity \(LeakGraph.stackTableCapacity)")
    withExtendedLifetime(kept) {}
case "--many":
    let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 100_000
    for _ in 0..<count { makePair(mode: "--leak") }
    print("cycle-example: leaked \(count) more pairs")
case "--dump-to":
    LeakGraph.dumpAtExit(to: CommandLine.arguments.dropFirst(2).first ?? "leak-dumps")
case "--memory":
    for round in 1...3 {
        churn(100_000)
        print(
            "cycle-example: round \(round): \(LeakGraph.registryByteCount) bytes, \(LeakGraph.liveObjectCount) live, \(LeakGraph.edgeCount) edges"
        )
    }
default:
    break
}
