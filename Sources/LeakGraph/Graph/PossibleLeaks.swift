/// A retained cycle that only memory LeakGraph could not read may be holding: if the references
/// hidden there are the ones the cycle's retain counts do not explain, the cycle is leaked.
///
/// Found when a cycle is *retained* with no known holder outside it (every outside reference
/// is one the graph does not show), and one of its members, or an object they reach, held
/// references discovery could not type (``GraphSnapshot/unreadReferences``). Reports say
/// "possible leak" for these, never "No leaks."
public struct PossibleLeak: Sendable, Hashable, Codable {
    /// The cycle's position in ``LeakReport/cycles``.
    public var cycle: Int
    /// The references the graph does not show that hold the cycle's members.
    public var unexplained: Int
    /// The unread memory the cycle reaches (at most three records, the nearest first).
    public var unread: [UnreadReferenceInfo]

    /// Creates a description.
    public init(cycle: Int, unexplained: Int, unread: [UnreadReferenceInfo]) {
        self.cycle = cycle
        self.unexplained = unexplained
        self.unread = unread
    }
}

/// Which retained cycles reach unread memory, and which objects outside cycles do: one reverse
/// breadth-first pass from the objects with unread records over the strong edges, linear in the
/// graph.
enum UnreadReach {
    /// For each object (by position), the unread record nearest to it downstream (-1: none).
    static func nearestUnread(_ snapshot: GraphSnapshot, graph: StrongGraph) -> [Int32] {
        var nearest = [Int32](repeating: -1, count: graph.count)
        guard !snapshot.unreadReferences.isEmpty else { return nearest }
        let index = NodeIndex(snapshot.objects)
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
        _ snapshot: GraphSnapshot, report: LeakReport, nearest: [Int32]
    ) -> [PossibleLeak] {
        guard !snapshot.unreadReferences.isEmpty else { return [] }
        let index = NodeIndex(snapshot.objects)
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
}
