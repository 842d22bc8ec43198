/// Who keeps what alive alone: the dominator tree of the strong references.
///
/// An object *dominates* another when every chain of strong references that keeps the other
/// alive passes through it: freeing it (or cutting the references into it) frees the other too.
/// The tree's root stands for everything outside the graph: it points at each object held from
/// outside (a retain count the graph's edges do not explain, or no holder in the graph at all)
/// and, for each leaked cycle nothing else in the graph holds, at its newest member — so a leak
/// is rooted at the object created last, and that member keeps the whole leak alive.
///
/// Computed with Cooper, Harvey and Kennedy's iterative algorithm over a reverse postorder: linear
/// in objects + edges for the graphs references make (a few passes).
///
/// ```swift
/// let dominators = Dominators(snapshot, report: report)
/// dominators.keepsAlive(of: subject.id)   // objects freed if nothing held it any more
/// ```
public struct Dominators: Sendable {
    /// Object ids, indexed by node (node 0 is the root).
    private let ids: [UInt64]
    private let objectIndex: NodeIndex
    /// The immediate dominator of each node (-1: unreachable).
    private let immediate: [Int32]
    /// How many objects each node keeps alive alone (its dominator subtree, itself excluded).
    private let kept: [Int32]
    /// Whether each node is a member of the report's leaked objects.
    private let isLeaked: [Bool]
    /// The dominator tree's children of each node, in compressed rows (empty unless asked for:
    /// only ``keptAlive(by:)`` needs them).
    private let childStart: [Int32]
    private let children: [Int32]

    /// The dominator tree of `snapshot`'s strong edges, with roots chosen from `report`.
    ///
    /// - Parameter listsKeptObjects: Whether ``keptAlive(by:)`` will be asked (it needs the
    ///   tree's children, which cost another pass); ``keepsAlive(of:)`` works either way.
    public init(_ snapshot: GraphSnapshot, report: LeakReport, listsKeptObjects: Bool = true) {
        let count = snapshot.objects.count
        let objectIDs = snapshot.objects.map(\.id)
        // Node n + 1 is snapshot.objects[n] (node 0 is the root).
        let objectIndex = NodeIndex(ids: objectIDs)
        let ids = [0] + objectIDs
        func node(_ id: UInt64) -> Int32? {
            let position = objectIndex.node(of: id)
            return position >= 0 ? Int32(position + 1) : nil
        }
        // Strong edges as (from, to) node pairs; parallel references count once for the
        // structure but all of them for what explains a retain count.
        var pairs: [(Int32, Int32)] = []
        pairs.reserveCapacity(snapshot.edges.count)
        var strongIn = [Int](repeating: 0, count: count + 1)
        for edge in snapshot.edges where edge.kind.keepsAlive {
            guard let from = node(edge.from), let to = node(edge.to), from != to else { continue }
            pairs.append((from, to))
            strongIn[Int(to)] += edge.count
        }
        // Roots: held from outside, or not held in the graph at all; and the newest member of
        // each leaked cycle nothing outside it in the graph holds. (Leaked objects are marked by
        // node once: a set lookup per object cost more than the rest of the setup.)
        var isLeaked = [Bool](repeating: false, count: count + 1)
        for id in report.leakedObjectIDs { if let leaked = node(id) { isLeaked[Int(leaked)] = true } }
        for (index, object) in snapshot.objects.enumerated() where !isLeaked[index + 1] {
            let node = Int32(index + 1)
            if strongIn[Int(node)] == 0 || (object.strongRetainCount ?? 0) > strongIn[Int(node)] {
                pairs.append((0, node))
            }
        }
        // Which leaked cycle each node belongs to, then one pass over the edges for the cycles
        // something else in the graph holds (those are reached through it).
        var cycleOfNode = [Int32](repeating: -1, count: count + 1)
        var leakedCycleCount: Int32 = 0
        var newestOfCycle: [Int32] = []
        for cycleIndex in report.cycles.indices where report.cycles[cycleIndex].leaked {
            var newest: Int32 = -1
            var newestID: UInt64 = 0
            for id in report.cycles[cycleIndex].objects {
                guard let member = node(id) else { continue }
                cycleOfNode[Int(member)] = leakedCycleCount
                if newest < 0 || id > newestID {
                    newest = member
                    newestID = id
                }
            }
            newestOfCycle.append(newest)
            leakedCycleCount += 1
        }
        var heldFromElsewhere = [Bool](repeating: false, count: Int(leakedCycleCount))
        for (from, to) in pairs {
            let cycle = cycleOfNode[Int(to)]
            if cycle >= 0 && cycleOfNode[Int(from)] != cycle { heldFromElsewhere[Int(cycle)] = true }
        }
        for (cycle, newest) in newestOfCycle.enumerated() where !heldFromElsewhere[cycle] && newest >= 0 {
            pairs.append((0, newest))
        }
        let graph = CompactGraph(nodeCount: count + 1, pairs: pairs)
        let (immediate, kept) = Self.solve(graph)
        self.ids = ids
        self.objectIndex = objectIndex
        self.immediate = immediate
        self.kept = kept
        self.isLeaked = isLeaked
        if listsKeptObjects {
            let tree = CompactGraph(
                nodeCount: count + 1,
                pairs: immediate.indices.compactMap { node in
                    immediate[node] > 0 ? (immediate[node], Int32(node)) : nil
                })
            childStart = tree.successorStart
            children = tree.successors
        } else {
            childStart = []
            children = []
        }
    }

    /// How many objects `id` alone keeps alive (0 for an unknown id).
    public func keepsAlive(of id: UInt64) -> Int {
        let position = objectIndex.node(of: id)
        return position >= 0 ? Int(kept[position + 1]) : 0
    }

    /// ``keepsAlive(of:)`` of `snapshot.objects[index]` of the snapshot this was made from,
    /// without looking the id up (writers that go through the objects in order).
    package func keepsAlive(ofObjectAt index: Int) -> Int {
        Int(kept[index + 1])
    }

    /// Whether `snapshot.objects[index]` of the snapshot this was made from is in the report's
    /// leaked objects (one load instead of a set lookup per object).
    package func isLeaked(objectAt index: Int) -> Bool {
        isLeaked[index + 1]
    }

    /// The object that alone keeps `id` alive, nil when only outside holders do (or when `id`
    /// is unknown or unreachable).
    public func immediateDominator(of id: UInt64) -> UInt64? {
        let position = objectIndex.node(of: id)
        guard position >= 0 else { return nil }
        let dominator = immediate[position + 1]
        return dominator > 0 ? ids[Int(dominator)] : nil
    }

    /// The objects `id` alone keeps alive (its dominator subtree, itself excluded).
    public func keptAlive(by id: UInt64) -> [UInt64] {
        precondition(!childStart.isEmpty || ids.count <= 1, "Dominators made with listsKeptObjects: false")
        let position = objectIndex.node(of: id)
        guard position >= 0 else { return [] }
        var result: [UInt64] = []
        var stack = [Int32(position + 1)]
        while let next = stack.popLast() {
            for index in childStart[Int(next)]..<childStart[Int(next) + 1] {
                let child = children[Int(index)]
                result.append(ids[Int(child)])
                stack.append(child)
            }
        }
        return result.sorted()
    }

    /// Cooper–Harvey–Kennedy: immediate dominators, then subtree sizes in postorder.
    private static func solve(_ graph: CompactGraph) -> (immediate: [Int32], kept: [Int32]) {
        let count = graph.nodeCount
        // Iterative depth-first search from the root for a postorder.
        var postorderNumber = [Int32](repeating: -1, count: count)
        var postorder: [Int32] = []
        postorder.reserveCapacity(count)
        var visited = [Bool](repeating: false, count: count)
        var stack: [(node: Int32, next: Int32)] = [(0, graph.successorStart[0])]
        visited[0] = true
        while !stack.isEmpty {
            let top = stack.count - 1
            let (node, next) = stack[top]
            if next < graph.successorStart[Int(node) + 1] {
                stack[top].next = next + 1
                let successor = graph.successors[Int(next)]
                if !visited[Int(successor)] {
                    visited[Int(successor)] = true
                    stack.append((successor, graph.successorStart[Int(successor)]))
                }
            } else {
                postorderNumber[Int(node)] = Int32(postorder.count)
                postorder.append(node)
                stack.removeLast()
            }
        }
        var immediate = [Int32](repeating: -1, count: count)
        immediate[0] = 0
        func intersect(_ first: Int32, _ second: Int32) -> Int32 {
            var a = first
            var b = second
            while a != b {
                while postorderNumber[Int(a)] < postorderNumber[Int(b)] { a = immediate[Int(a)] }
                while postorderNumber[Int(b)] < postorderNumber[Int(a)] { b = immediate[Int(b)] }
            }
            return a
        }
        var changed = true
        while changed {
            changed = false
            // Reverse postorder, the root (last in postorder) excluded.
            for position in stride(from: postorder.count - 2, through: 0, by: -1) {
                let node = postorder[position]
                var candidate: Int32 = -1
                for index in graph.predecessorStart[Int(node)]..<graph.predecessorStart[Int(node) + 1] {
                    let predecessor = graph.predecessors[Int(index)]
                    guard immediate[Int(predecessor)] >= 0 else { continue }
                    candidate = candidate < 0 ? predecessor : intersect(predecessor, candidate)
                }
                if candidate >= 0 && immediate[Int(node)] != candidate {
                    immediate[Int(node)] = candidate
                    changed = true
                }
            }
        }
        // Subtree sizes: a node's dominator comes after it in postorder.
        var size = [Int32](repeating: 0, count: count)
        for node in postorder {
            size[Int(node)] += 1
            if node != 0 { size[Int(immediate[Int(node)])] += size[Int(node)] }
        }
        immediate[0] = -1
        return (immediate, size.map { max($0 - 1, 0) })
    }
}

/// Successor and predecessor lists in compressed rows.
private struct CompactGraph {
    let nodeCount: Int
    var successorStart: [Int32]
    var successors: [Int32]
    var predecessorStart: [Int32]
    var predecessors: [Int32]

    init(nodeCount: Int, pairs: [(Int32, Int32)]) {
        self.nodeCount = nodeCount
        (successorStart, successors) = Self.rows(nodeCount, pairs, key: { $0.0 }, value: { $0.1 })
        (predecessorStart, predecessors) = Self.rows(nodeCount, pairs, key: { $0.1 }, value: { $0.0 })
    }

    private static func rows(
        _ count: Int, _ pairs: [(Int32, Int32)], key: ((Int32, Int32)) -> Int32, value: ((Int32, Int32)) -> Int32
    ) -> ([Int32], [Int32]) {
        var start = [Int32](repeating: 0, count: count + 1)
        for pair in pairs { start[Int(key(pair)) + 1] += 1 }
        for index in 0..<count { start[index + 1] += start[index] }
        var fill = start
        var values = [Int32](repeating: 0, count: pairs.count)
        for pair in pairs {
            let row = Int(key(pair))
            values[Int(fill[row])] = value(pair)
            fill[row] += 1
        }
        return (start, values)
    }
}
