import LeakGraph

/// Big graphs for timing discovery, detection and the dump at exit.
public enum BigGraphs {
    /// Objects kept alive from outside (what makes a shape retained).
    nonisolated(unsafe) static var kept: [Node] = []
    /// Task owners kept alive for the baseline shape.
    nonisolated(unsafe) static var keptKeepers: [ContinuationKeeper] = []

    /// Builds `shape` with about `size` objects; false for an unknown shape.
    public static func build(_ shape: String, size: Int) -> Bool {
        switch shape {
        case "suspended-tasks":
            // Objects each keeping a task suspended on a continuation they hold (the task shape),
            // for what a snapshot pays per task.
            for _ in 0..<size / 2 { ContinuationKeeper().start() }
            TaskScenarios.waitForSuspendedTasks()
        case "stream-tasks":
            // Objects each keeping a task that iterates a stream whose continuation they hold:
            // with whole-process tracking, every task's frames are credited after the search
            // for outside holders (what that search costs).
            for _ in 0..<size / 2 { StreamListener().start() }
            TaskScenarios.waitForSuspendedTasks()
        case "task-owners":
            // The same objects without their tasks: the baseline.
            for _ in 0..<size / 2 { keptKeepers.append(ContinuationKeeper()) }
        case "ring":
            // One leaked cycle through every node.
            let nodes = (0..<size).map { _ in Node() }
            for index in nodes.indices { nodes[index].next = nodes[(index + 1) % size] }
        case "list":
            // A chain held by a global: alive, no cycle.
            let nodes = (0..<size).map { _ in Node() }
            for index in 1..<size { nodes[index - 1].next = nodes[index] }
            kept = [nodes[0]]
        case "pairs":
            for _ in 0..<size / 2 {
                let a = Node()
                let b = Node()
                a.next = b
                b.next = a
            }
        case "generic-closure-pairs":
            // Pairs closed through closures made in generic code (RxSwift's and Combine's shape):
            // every context's layout depends on the generic arguments it stores.
            for _ in 0..<size / 2 {
                let a = Node()
                let b = Node()
                a.action = retaining(b)
                b.action = IntSource().subscribe(onNext: { _ in _ = a.children })
            }
        case "web":
            // Every node holds two others and the whole web is held from outside: one big
            // retained component with many outside holders.
            let nodes = (0..<size).map { _ in Node() }
            var state: UInt64 = 42
            func next() -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33) % size
            }
            for node in nodes { node.children = [nodes[next()], nodes[next()]] }
            kept = nodes
        case "document":
            // 400 holders share one document of `size` values; each document value refers back
            // to a holder, so the holders and the document form one leaked component.
            let holders = (0..<400).map { _ in Node() }
            var document: [String: Any] = [:]
            for index in 0..<size { document["key\(index)"] = index % 100 == 0 ? holders[(index / 100) % 400] : index }
            for holder in holders { holder.values = document }
        case "generic-types":
            // `size` objects of as many distinct generic classes (`Typed<Left<Right<…>>>`, a
            // binary tree of type arguments), in one leaked ring: every per-type cache (type
            // names, walk plans) sees `size` types.
            var objects: [Linked] = []
            objects.reserveCapacity(size)
            var remaining = size
            func spread<Tag>(_: Tag.Type, depth: Int) {
                guard remaining > 0 else { return }
                objects.append(Typed<Tag>())
                remaining -= 1
                guard depth > 0 else { return }
                spread(Left<Tag>.self, depth: depth - 1)
                spread(Right<Tag>.self, depth: depth - 1)
            }
            var depth = 0
            while (1 << (depth + 1)) - 1 < size { depth += 1 }
            spread(Void.self, depth: depth)
            for index in objects.indices { objects[index].next = objects[(index + 1) % objects.count] }
        case "hub":
            let hub = Node()
            hub.children = (0..<size).map { _ in
                let spoke = Node()
                spoke.next = hub
                return spoke
            }
        default:
            return false
        }
        return true
    }
}

/// A tracked object of one of many generic classes, linked to the next.
class Linked: TrackedObject {
    var next: Linked?
}

/// One class per type argument.
final class Typed<Tag>: Linked {}

/// Type arguments that make every `Typed<…>` distinct.
enum Left<Tag> {}
enum Right<Tag> {}
