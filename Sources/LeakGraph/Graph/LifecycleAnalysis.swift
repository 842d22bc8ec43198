/// Sorts the live objects that report a lifecycle (a subscription's sinks, a pending scheduled
/// action, a Combine subscriber) by whether they can still finish.
///
/// - *Finished but still held*: the object reported `disposed`, `completed` or `errored` and is
///   still alive (``LeakReport/finishedButHeld``).
/// - *Never finished*: it is still `active`, and something outside the graph's leaked garbage can
///   still reach it along references events travel (``LeakReport/neverFinished``): a subject the
///   program still holds, a timer a queue still holds. At the end of a test that is a subscription
///   the test forgot; in a running program it may be one that is simply still in use.
/// - *Can never finish*: it is `active`, but nothing outside can reach it except through
///   references that only dispose (``LeakReport/canNeverFinish``): no event, no completion, no
///   error can ever arrive, so it ends only when its owner disposes it. That is a leak even when
///   a `DisposeBag`, a scheduler or a timer still holds it and the cycle detector calls it
///   *retained*.
///
/// "Outside" is what a reference the graph does not show can reach: an object whose strong retain
/// count exceeds its strong in-edges, or whose `weak` and `unowned` reference count (read from
/// the runtime) exceeds its weak, unowned and unknown in-edges; an object whose counts are unknown
/// counts as reachable from outside. From those, every edge is followed except declared edges
/// under a *disposal label* (libraries register them: LeakGraphRx's `cancel`, `sink`,
/// `subscription`, `bag`, … — references a subscription keeps only to dispose something). Objects
/// in leaked garbage are in neither list: *leaked* already says more.
///
/// An unknown count or an edge followed that carries no event only moves an object from "can
/// never finish" to "never finished", never the reverse. What the runtime does not count is
/// invisible: a pointer C code keeps without retaining it (`Unmanaged.passUnretained`,
/// `unowned(unsafe)`) to an object the subscription's own disposable keeps alive.
///
/// Cost: O(objects + edges), and nothing when no object reported itself `active`.
public enum LifecycleAnalysis {
    /// The active objects of `snapshot` that are not in `leaked`, split into those something
    /// outside can still send events to and those nothing can.
    ///
    /// - Parameters:
    ///   - leaked: Objects already reported leaked (left out of both lists).
    ///   - disposalLabels: Labels of declared references that only dispose (see
    ///     ``LeakAdvice/registerDisposalLabels(_:)``); empty follows every reference.
    /// - Returns: Ascending ids.
    public static func activeObjects(
        in snapshot: GraphSnapshot, leaked: Set<UInt64>, disposalLabels: Set<String>
    ) -> (neverFinished: [UInt64], canNeverFinish: [UInt64]) {
        let objects = snapshot.objects
        guard objects.contains(where: { $0.state == .active }) else { return ([], []) }
        let count = objects.count
        let index = NodeIndex(objects)
        // `label` cuts edges of any owner; `Owner.label` only those of owners of that type.
        var anyOwner = Set<String>()
        var byOwner: [String: Set<String>] = [:]
        for entry in disposalLabels {
            if let dot = entry.lastIndex(of: ".") {
                byOwner[String(entry[entry.index(after: dot)...]), default: []].insert(String(entry[..<dot]))
            } else {
                anyOwner.insert(entry)
            }
        }
        func isDisposal(_ edge: EdgeInfo, from node: Int) -> Bool {
            guard edge.origin == .declared else { return false }
            if anyOwner.contains(edge.label) { return true }
            guard let owners = byOwner[edge.label] else { return false }
            return owners.contains(ObjectInfo.baseTypeName(objects[node].type))
        }
        var strongIn = [Int](repeating: 0, count: count)
        var otherIn = [Int](repeating: 0, count: count)
        // Followed edges in compressed rows: counted first, then placed.
        var outDegree = [Int32](repeating: 0, count: count + 1)
        var followed: [(from: Int32, to: Int32)] = []
        followed.reserveCapacity(snapshot.edges.count)
        snapshot.edges.withUnsafeBufferPointer { edges in
            for position in edges.indices {
                let from = index.node(of: edges[position].from)
                let to = index.node(of: edges[position].to)
                guard from >= 0, to >= 0 else { continue }
                let weight = max(0, edges[position].count)
                if edges[position].kind.keepsAlive {
                    strongIn[to] += weight
                } else {
                    otherIn[to] += weight
                }
                if isDisposal(edges[position], from: from) { continue }
                followed.append((Int32(from), Int32(to)))
                outDegree[from] += 1
            }
        }
        var offsets = [Int32](repeating: 0, count: count + 1)
        for node in 0..<count { offsets[node + 1] = offsets[node] + outDegree[node] }
        var fill = offsets
        var targets = [Int32](repeating: 0, count: followed.count)
        for edge in followed {
            targets[Int(fill[Int(edge.from)])] = edge.to
            fill[Int(edge.from)] += 1
        }
        // Reachable from outside: the roots, then everything a followed edge leads to.
        var reached = [Bool](repeating: false, count: count)
        var queue: [Int32] = []
        for node in 0..<count where isHeldFromOutside(objects[node], strongIn: strongIn[node], otherIn: otherIn[node]) {
            reached[node] = true
            queue.append(Int32(node))
        }
        while let node = queue.popLast() {
            for edge in Int(offsets[Int(node)])..<Int(offsets[Int(node) + 1]) {
                let target = Int(targets[edge])
                if !reached[target] {
                    reached[target] = true
                    queue.append(Int32(target))
                }
            }
        }
        var neverFinished: [UInt64] = []
        var canNeverFinish: [UInt64] = []
        for node in 0..<count where objects[node].state == .active && !leaked.contains(objects[node].id) {
            if reached[node] {
                neverFinished.append(objects[node].id)
            } else {
                canNeverFinish.append(objects[node].id)
            }
        }
        return (neverFinished, canNeverFinish)
    }

    /// Whether references the graph does not show hold or point at `object`.
    static func isHeldFromOutside(_ object: ObjectInfo, strongIn: Int, otherIn: Int) -> Bool {
        guard let strong = object.strongRetainCount, let other = object.weakAndUnownedReferenceCount else {
            return true
        }
        return strong > strongIn || other > otherIn
    }
}
