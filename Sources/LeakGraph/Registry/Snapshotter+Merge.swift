import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// From what the walk found to the snapshot's edges: the nodes worth keeping, one edge per
/// reference however it was found, and counts that fit.
extension Snapshotter {
    /// Discovered references that merge into one edge (with a count).
    struct EdgeKey: Hashable {
        let kind: EdgeKind
        let label: String
        let closure: UInt
    }

    /// Keeps the nodes discovery added that lead to a tracked object (directly or through other
    /// such nodes): storage and untracked objects that hold nothing tracked are left out of the
    /// graph. Returns the kept nodes and the references, renumbered.
    static func usefulNodes(
        _ nodes: [DiscoveredNode], _ found: [DiscoveredReference], unread: inout [UnreadReference],
        candidates: inout [CandidateReference], regions: inout [UntypedRegion], trackedCount: Int
    ) -> ([DiscoveredNode], [DiscoveredReference]) {
        guard !nodes.isEmpty else { return ([], found) }
        var useful = [Bool](repeating: false, count: nodes.count)
        var predecessors = [[Int]](repeating: [], count: nodes.count)
        var queue: [Int] = []
        // A node whose memory held references the walk could not read may lead to a tracked
        // object through them: kept, so that the reports can say so.
        // So does one with words that matched a tracked object, or with untyped memory.
        let owners =
            unread.lazy.map(\.owner) + candidates.lazy.map(\.from) + candidates.lazy.map(\.family)
            + regions.lazy.map(\.owner)
        for owner in owners where owner >= trackedCount {
            let node = owner - trackedCount
            if !useful[node] {
                useful[node] = true
                queue.append(node)
            }
        }
        for reference in found where reference.from >= trackedCount {
            let node = reference.from - trackedCount
            switch reference.to {
            case .tracked:
                if !useful[node] {
                    useful[node] = true
                    queue.append(node)
                }
            case .node(let target):
                predecessors[target].append(node)
            }
        }
        while let node = queue.popLast() {
            for predecessor in predecessors[node] where !useful[predecessor] {
                useful[predecessor] = true
                queue.append(predecessor)
            }
        }
        // In address order: a node's id is made from its address, and objects go in id order.
        var renumbered = [Int](repeating: -1, count: nodes.count)
        var kept: [DiscoveredNode] = []
        for index in nodes.indices.filter({ useful[$0] }).sorted(by: { nodes[$0].address < nodes[$1].address }) {
            renumbered[index] = kept.count
            kept.append(nodes[index])
        }
        let references = found.compactMap { reference -> DiscoveredReference? in
            var from = reference.from
            if from >= trackedCount {
                let node = renumbered[from - trackedCount]
                guard node >= 0 else { return nil }
                from = trackedCount + node
            }
            var to = reference.to
            if case .node(let target) = reference.to {
                guard renumbered[target] >= 0 else { return nil }
                to = .node(renumbered[target])
            }
            return DiscoveredReference(
                from: from, to: to, kind: reference.kind, label: reference.label, origin: reference.origin,
                closureAddress: reference.closureAddress)
        }
        unread = unread.map {
            guard $0.owner >= trackedCount else { return $0 }
            return UnreadReference(
                owner: trackedCount + renumbered[$0.owner - trackedCount], place: $0.place, why: $0.why)
        }
        for index in candidates.indices where candidates[index].from >= trackedCount {
            candidates[index].from = trackedCount + renumbered[candidates[index].from - trackedCount]
        }
        for index in candidates.indices where candidates[index].family >= trackedCount {
            candidates[index].family = trackedCount + renumbered[candidates[index].family - trackedCount]
        }
        // A task's word at a node: the node renumbered, or, left out, the word dropped and the
        // task's memory said unread.
        candidates.removeAll { candidate in
            guard candidate.to >= trackedCount else { return false }
            guard renumbered[candidate.to - trackedCount] < 0 else { return false }
            if candidate.region >= 0 { regions[Int(candidate.region)].isAccountedFor = false }
            return true
        }
        for index in candidates.indices where candidates[index].to >= trackedCount {
            candidates[index].to = trackedCount + renumbered[candidates[index].to - trackedCount]
        }
        for index in regions.indices where regions[index].owner >= trackedCount {
            regions[index].owner = trackedCount + renumbered[regions[index].owner - trackedCount]
        }
        return (kept, references)
    }

    /// A reference declared by code and found again by reflection is one reference: per
    /// (owner, target) pair, discovered strong references only add what the declared ones do not
    /// already account for.
    static func merge(
        _ found: [DiscoveredReference], declared: [RawEdge], objects: [ObjectInfo],
        trackedCount: Int
    ) -> [EdgeInfo] {
        // Both sides sorted by (from, to) and walked together: a million references cost two
        // sorts of plain integers, not a dictionary entry and an array per owner–target pair.
        struct DeclaredPair {
            var from: Int
            var to: Int
            var strong: Int
            var other: Bool
        }
        func before(_ a: (Int, Int), _ b: (Int, Int)) -> Bool { a.0 != b.0 ? a.0 < b.0 : a.1 < b.1 }
        var declaredPairs: [DeclaredPair] = declared.map { raw in
            let kind = EdgeKind(code: raw.kind)
            let strong = kind == .strong || kind == .unknown
            return DeclaredPair(from: raw.from, to: raw.to, strong: strong ? raw.count : 0, other: !strong)
        }
        declaredPairs.sort { before(($0.from, $0.to), ($1.from, $1.to)) }
        var coalesced: [DeclaredPair] = []
        coalesced.reserveCapacity(declaredPairs.count)
        for pair in declaredPairs {
            if let last = coalesced.last, last.from == pair.from, last.to == pair.to {
                coalesced[coalesced.count - 1].strong += pair.strong
                coalesced[coalesced.count - 1].other = last.other || pair.other
            } else {
                coalesced.append(pair)
            }
        }
        declaredPairs = []  // `coalesced` holds them now; the merge peaks below
        // Found references with their target's index, in discovery order within each pair.
        struct Resolved {
            var from: Int
            var to: Int
            var order: Int
        }
        var resolved: [Resolved] = []
        resolved.reserveCapacity(found.count)
        for (order, reference) in found.enumerated() {
            switch reference.to {
            case .tracked(let index):
                resolved.append(Resolved(from: reference.from, to: index, order: order))
            case .node(let node):
                resolved.append(Resolved(from: reference.from, to: trackedCount + node, order: order))
            }
        }
        resolved.sort { a, b in
            if a.from != b.from { return a.from < b.from }
            if a.to != b.to { return a.to < b.to }
            return a.order < b.order
        }
        var result: [EdgeInfo] = []
        // Room for the references no declared edge accounts for: reserving one edge per found
        // reference doubled a big snapshot's edges for the moment (in a graph of declared edges,
        // the walk finds them all again and keeps none).
        result.reserveCapacity(max(0, resolved.count - coalesced.count))
        var kept: [EdgeKey: Int] = [:]
        var declaredCursor = 0
        var groupStart = 0
        while groupStart < resolved.count {
            let pair = (resolved[groupStart].from, resolved[groupStart].to)
            var groupEnd = groupStart + 1
            while groupEnd < resolved.count && resolved[groupEnd].from == pair.0 && resolved[groupEnd].to == pair.1 {
                groupEnd += 1
            }
            while declaredCursor < coalesced.count
                && before((coalesced[declaredCursor].from, coalesced[declaredCursor].to), pair)
            {
                declaredCursor += 1
            }
            let declaredHere =
                declaredCursor < coalesced.count && coalesced[declaredCursor].from == pair.0
                    && coalesced[declaredCursor].to == pair.1
                ? coalesced[declaredCursor] : nil
            var remaining = declaredHere?.strong ?? 0
            let anyDeclared = declaredHere.map { $0.other || $0.strong > 0 } ?? false
            // References that merge into one edge: a short linear search for the usual few,
            // a dictionary for a pair with many.
            let firstKept = result.count
            let hashed = groupEnd - groupStart > 16
            if hashed { kept.removeAll(keepingCapacity: true) }
            for position in groupStart..<groupEnd {
                let reference = found[resolved[position].order]
                if reference.kind == .strong || reference.kind == .unknown {
                    if remaining > 0 {
                        remaining -= 1
                        continue
                    }
                } else if anyDeclared {
                    continue
                }
                let key = EdgeKey(kind: reference.kind, label: reference.label, closure: reference.closureAddress ?? 0)
                let existing: Int?
                if hashed {
                    existing = kept[key]
                } else {
                    existing = result[firstKept...].firstIndex { edge in
                        edge.kind == key.kind && edge.label == key.label && (edge.closureAddress ?? 0) == key.closure
                    }
                }
                if let existing {
                    result[existing].count += 1
                } else {
                    if hashed { kept[key] = result.count }
                    result.append(
                        EdgeInfo(
                            from: objects[pair.0].id, to: objects[pair.1].id, kind: reference.kind,
                            label: reference.label, origin: reference.origin, closureAddress: reference.closureAddress))
                }
            }
            groupStart = groupEnd
        }
        // Field by field, not as tuples: tuple `<` is generic and, in a debug build, looks up
        // tuple metadata for every comparison.
        func before(_ a: EdgeInfo, _ b: EdgeInfo) -> Bool {
            if a.from != b.from { return a.from < b.from }
            if a.to != b.to { return a.to < b.to }
            return a.label < b.label
        }
        // Objects are in id order, so edges come out ordered by (from, to) already: only the
        // edges of one pair need ordering by label, in place. Sorted whole otherwise.
        var start = 0
        var pairsInOrder = true
        while start < result.count {
            var end = start + 1
            while end < result.count && result[end].from == result[start].from && result[end].to == result[start].to {
                end += 1
            }
            if end - start > 1 { result[start..<end].sort(by: before) }
            if end < result.count && !before(result[end - 1], result[end]) { pairsInOrder = false }
            start = end
        }
        if !pairsInOrder { result.sort(by: before) }
        return result
    }

    /// More strong references into an object than its retain count allows means some found ones
    /// are not strong (an `unowned` capture looks like a strong one): downgrade found references
    /// to `.unknown` until the count fits. Declared edges are trusted.
    static func reconcile(_ edges: inout [EdgeInfo], objects: [ObjectInfo], retainCounts: [Int]) {
        // Objects are in id order by construction (held objects sorted by `sortByID`, then the
        // discovered nodes in address order, whose ids follow): a direct table or a binary search.
        let index = NodeIndex(objects)
        let position = { index.node(of: $0) }
        var strongIn = [Int](repeating: 0, count: objects.count)
        for edge in edges where edge.kind == .strong {
            strongIn[position(edge.to)] += edge.count
        }
        for place in edges.indices.reversed() {
            let edge = edges[place]
            guard edge.kind == .strong, edge.origin != .declared else { continue }
            let target = position(edge.to)
            if strongIn[target] > retainCounts[target] {
                edges[place].kind = .unknown
                strongIn[target] -= edge.count
            }
        }
    }
}
