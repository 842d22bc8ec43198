/// A retained cycle that only memory LeakGraph could not read may be holding: if the references
/// hidden there are the ones the cycle's retain counts do not explain, the cycle is leaked.
///
/// Found when a cycle is *retained* with no known holder outside it (every outside reference
/// is one the graph does not show), and one of its members, or an object they reach, held
/// references discovery could not type (``GraphSnapshot/unreadReferences``). Reports say
/// "possible leak" for these, never "No leaks."
///
/// Also found for an object in no cycle that nothing the graph shows holds, when the unread memory
/// is its own or that of objects it alone holds (`Node —action→ context` whose capture could not be
/// read): the reference that would close the cycle is exactly what could not be read.
public struct PossibleLeak: Sendable, Hashable, Codable {
    /// The cycle's position in ``LeakReport/cycles``; nil for an object in no cycle.
    public var cycle: Int?
    /// For an object in no cycle: its id.
    public var object: UInt64?
    /// The references the graph does not show that hold the cycle's members (or the object).
    public var unexplained: Int
    /// The unread memory the cycle reaches (at most three records, the nearest first).
    public var unread: [UnreadReferenceInfo]

    /// Creates a description of a retained cycle.
    public init(cycle: Int, unexplained: Int, unread: [UnreadReferenceInfo]) {
        self.cycle = cycle
        self.unexplained = unexplained
        self.unread = unread
    }

    /// Creates a description of an object in no cycle.
    public init(object: UInt64, unexplained: Int, unread: [UnreadReferenceInfo]) {
        self.object = object
        self.unexplained = unexplained
        self.unread = unread
    }
}

/// Which retained cycles reach unread memory, and which objects outside cycles do: one reverse
/// breadth-first pass from the objects with unread records over the strong edges, linear in the
/// graph.
enum UnreadReach {
    /// For each object (by position), the unread record nearest to it downstream (-1: none).
    static func nearestUnread(_ snapshot: GraphSnapshot, graph: StrongGraph, index: NodeIndex) -> [Int32] {
        var nearest = [Int32](repeating: -1, count: graph.count)
        guard !snapshot.unreadReferences.isEmpty else { return nearest }
        // Reverse edges, in compressed rows.
        var reverseOffsets = [Int32](repeating: 0, count: graph.count + 1)
        for target in graph.targets { reverseOffsets[Int(target) + 1] += 1 }
        for node in 0..<graph.count { reverseOffsets[node + 1] += reverseOffsets[node] }
        var cursor = reverseOffsets
        var sources = [Int32](repeating: 0, count: graph.targets.count)
        for node in 0..<graph.count {
            for edge in Int(graph.offsets[node])..<Int(graph.offsets[node + 1]) {
                let target = Int(graph.targets[edge])
                sources[Int(cursor[target])] = Int32(node)
                cursor[target] += 1
            }
        }
        var queue: [Int32] = []
        for (record, unread) in snapshot.unreadReferences.enumerated() {
            let node = index.node(of: unread.object)
            guard node >= 0, nearest[node] < 0 else { continue }
            nearest[node] = Int32(record)
            queue.append(Int32(node))
        }
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            for edge in Int(reverseOffsets[node])..<Int(reverseOffsets[node + 1]) {
                let source = Int(sources[edge])
                if nearest[source] < 0 {
                    nearest[source] = nearest[node]
                    queue.append(Int32(source))
                }
            }
        }
        return nearest
    }

    /// The possible leaks among `report`'s retained cycles.
    static func possibleLeaks(
        _ snapshot: GraphSnapshot, report: LeakReport, nearest: [Int32], index: NodeIndex
    ) -> [PossibleLeak] {
        guard !snapshot.unreadReferences.isEmpty else { return [] }
        var result: [PossibleLeak] = []
        for (position, cycle) in report.cycles.enumerated() where !cycle.leaked {
            guard !cycle.unexplainedHolders.isEmpty, cycle.unexplainedHolders.allSatisfy({ $0.knownHolders.isEmpty })
            else { continue }
            var records: [Int32] = []
            for member in cycle.objects {
                let node = index.node(of: member)
                guard node >= 0, nearest[node] >= 0, !records.contains(nearest[node]) else { continue }
                records.append(nearest[node])
                if records.count == 3 { break }
            }
            guard !records.isEmpty else { continue }
            result.append(
                PossibleLeak(
                    cycle: position, unexplained: cycle.unexplainedHolders.reduce(0) { $0 + $1.unexplained },
                    unread: records.map { snapshot.unreadReferences[Int($0)] }))
        }
        return result
    }

    /// The unknown owners that nothing the graph shows holds and whose own memory, or that of an
    /// object only they hold (followed through at most `limit` such objects), could not be read.
    static func possibleLeakedObjects(
        _ snapshot: GraphSnapshot, graph: StrongGraph, index: NodeIndex, unknownOwners: [UnknownOwner],
        limit: Int = 64
    ) -> [PossibleLeak] {
        guard !snapshot.unreadReferences.isEmpty else { return [] }
        var firstRecord = [Int32](repeating: -1, count: graph.count)
        // Only unread closure captures: the shape of a closure that captures its owner. An object
        // that nothing shown holds and that keeps a `Mutex` or a buffer's tail is most often a
        // service a global holds (`static let shared`): calling it a possible leak was noise.
        // A task's memory too: the shape of a task that holds its owner.
        for (record, unread) in snapshot.unreadReferences.enumerated().reversed()
        where unread.isCapture || unread.isTaskMemory {
            let node = index.node(of: unread.object)
            if node >= 0 { firstRecord[node] = Int32(record) }
        }
        let tasks = TasksPointingBack(snapshot)
        var result: [PossibleLeak] = []
        for owner in unknownOwners {
            let start = index.node(of: owner.object)
            guard start >= 0, graph.inWeight[start] == 0 else { continue }
            // Through objects held only by what was reached before them (the one edge that
            // reached them, or — a task its owner keeps a handle and a continuation of — every
            // holder among them), every holder shown.
            var stack = [start]
            var reached: Set<Int> = [start]
            var fromReached: [Int: Int] = [:]
            var visited = 0
            var found: Int32 = -1
            while let node = stack.popLast(), visited < limit {
                visited += 1
                if firstRecord[node] >= 0 {
                    found = firstRecord[node]
                    break
                }
                for edge in Int(graph.offsets[node])..<Int(graph.offsets[node + 1]) {
                    let target = Int(graph.targets[edge])
                    guard !reached.contains(target) else { continue }
                    let held = fromReached[target, default: 0] + Int(graph.weights[edge])
                    fromReached[target] = held
                    guard held == graph.inWeight[target], snapshot.objects[target].strongRetainCount == held else {
                        continue
                    }
                    reached.insert(target)
                    stack.append(target)
                }
            }
            if found < 0 { found = tasks.record(reachedFrom: start, snapshot: snapshot, graph: graph, limit: limit) }
            guard found >= 0 else { continue }
            result.append(
                PossibleLeak(
                    object: owner.object, unexplained: owner.unexplained,
                    unread: [snapshot.unreadReferences[Int(found)]]))
        }
        return result
    }

}

/// The tasks whose memory points at an object the counts did not confirm they hold (their
/// `.unknown` "frames" edges), and their unread records: gathered in one pass over the edges.
private struct TasksPointingBack {
    /// Target id → the tasks pointing at it.
    private var tasksPointingAt: [UInt64: Set<UInt64>] = [:]
    /// Task id → its unread record.
    private var recordOfTask: [UInt64: Int32] = [:]

    init(_ snapshot: GraphSnapshot) {
        for edge in snapshot.edges where edge.kind == .unknown && edge.label == "frames" {
            tasksPointingAt[edge.to, default: []].insert(edge.from)
        }
        guard !tasksPointingAt.isEmpty else { return }
        for (record, unread) in snapshot.unreadReferences.enumerated().reversed() where unread.isTaskMemory {
            recordOfTask[unread.object] = Int32(record)
        }
    }

    /// The unread record of a task that `start` reaches over owning edges (within `limit`
    /// objects) and whose memory points back at `start`: the task may be what holds it. -1 when
    /// there is none.
    func record(reachedFrom start: Int, snapshot: GraphSnapshot, graph: StrongGraph, limit: Int) -> Int32 {
        guard let tasks = tasksPointingAt[snapshot.objects[start].id] else { return -1 }
        var queue = [start]
        var seen: Set<Int> = [start]
        var head = 0
        while head < queue.count, head < limit {
            let node = queue[head]
            head += 1
            let id = snapshot.objects[node].id
            if tasks.contains(id), let record = recordOfTask[id] { return record }
            for edge in Int(graph.offsets[node])..<Int(graph.offsets[node + 1]) {
                let target = Int(graph.targets[edge])
                if seen.insert(target).inserted { queue.append(target) }
            }
        }
        return -1
    }
}
