// A tiny program that leaks a two-object cycle, for LeakGraph's own end-to-end tests and as the
// smallest example of dump-at-exit. Run with LEAKGRAPH_DUMP_DIR=some/dir.
//   cycle-example            leaks Parent <-> Child (reported as leaked)
//   cycle-example --hold     keeps Parent in a global (reported as retained)
//   cycle-example --none     makes the pair with a weak back reference (nothing left)
import LeakGraph

final class Parent: TrackedObject {
    @StrongRef var child: Child?
}

final class Child: TrackedObject {
    @StrongRef var parent: Parent?
    @WeakRef var weakParent: Parent?
}

nonisolated(unsafe) var heldParent: Parent?

@inline(never)
func makePair(mode: String) {
    let parent = Parent(label: "example")
    let child = Child()
    parent.child = child
    if mode == "--none" {
        child.weakParent = parent
    } else {
        child.parent = parent
    }
    if mode == "--hold" { heldParent = parent }
}

let mode = CommandLine.arguments.dropFirst().first ?? "--leak"
makePair(mode: mode)
print("cycle-example: made a pair (\(mode))")
