import Foundation
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

/// A different call stack for each depth.
@inline(never)
func allocate(atDepth depth: Int) -> Child {
    depth == 0 ? Child() : allocate(atDepth: depth - 1)
}

/// Calls exit(3) from a secondary thread while other threads keep allocating: the dump must
/// still be written, the status kept, and nothing may hang.
func busyExit() -> Never {
    for _ in 0..<4 {
        Thread {
            while true {
                let parent = Parent()
                let child = Child()
                parent.child = child
                child.weakParent = parent
            }
        }.start()
    }
    Thread {
        Thread.sleep(forTimeInterval: 0.2)
        exit(3)
    }.start()
    while true { sleep(1) }
}

/// Makes `count` objects linked as a tree (a chain would recurse `count` deinits deep on
/// release), then drops them all.
@inline(never)
func churn(_ count: Int) {
    var nodes: [Child] = []
    nodes.reserveCapacity(count)
    for _ in 0..<count { nodes.append(Child()) }
    for index in 1..<count { LeakGraph.addEdge(from: nodes[index], to: nodes[index / 2], label: "up") }
}
