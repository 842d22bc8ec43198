/// Snapshot object ids to node indices: a direct table when the tracked ids are dense enough
/// (they are handed out in order, so they nearly always are), else a hashed index (a dump of
/// cycles only keeps a scattered few of a big program's ids); discovered nodes (ids from
/// ``ObjectInfo/discoveredNodeIDBase``) are few and always searched.
///
/// Shared by every pass that maps a snapshot's ids to positions (the detector, the dominator
/// tree, the dump's restriction and tallies): a hash lookup per edge end was the largest cost
/// of the dominator tree of a million objects.
package struct NodeIndex: Sendable {
    private let ids: [UInt64]
    private let direct: [Int32]
    private let base: UInt64
    /// The tracked ids' positions when they are too scattered for `direct`, or every id's when
    /// they are not in ascending order (nil otherwise).
    private let hashed: FlatIndex?
    private let isAscending: Bool
    /// Objects below this index have tracked ids; the rest are discovered nodes.
    private let trackedCount: Int

    package init(_ objects: [ObjectInfo]) {
        self.init(ids: objects.map(\.id))
    }

    /// An index of `ids`. Snapshots list their objects in ascending id order, which the direct
    /// table needs; ids in any other order (a hand-built snapshot) are all hashed instead.
    package init(ids: [UInt64]) {
        self.ids = ids
        let ascending = ids.indices.dropFirst().allSatisfy { ids[$0 - 1] < ids[$0] }
        var tracked = ids.count
        if ascending {
            while tracked > 0 && ids[tracked - 1] >= ObjectInfo.discoveredNodeIDBase { tracked -= 1 }
        }
        trackedCount = tracked
        let low = tracked > 0 ? ids[0] : 0
        let span = tracked > 0 ? ids[tracked - 1] &- low &+ 1 : 0
        if ascending && tracked > 0 && span <= UInt64(4 * tracked + 1024) {
            var table = [Int32](repeating: -1, count: Int(span))
            for position in 0..<tracked { table[Int(ids[position] - low)] = Int32(position) }
            direct = table
            hashed = nil
        } else {
            direct = []
            var index = FlatIndex(capacity: tracked)
            // Keyed by id + 1: FlatIndex keys are nonzero, and a dump may hold an object 0.
            for position in 0..<tracked where ids[position] != .max {
                index.insert(ids[position] &+ 1, position: position)
            }
            hashed = tracked > 0 ? index : nil
        }
        base = low
        isAscending = ascending
    }

    /// The node of `id`, or -1.
    @inline(__always)
    package func node(of id: UInt64) -> Int {
        if !direct.isEmpty && id >= base && id - base < UInt64(direct.count) {
            return Int(direct[Int(id - base)])
        }
        if id < ObjectInfo.discoveredNodeIDBase || !isAscending {
            return hashed?.position(of: id &+ 1) ?? -1
        }
        return ids.withUnsafeBufferPointer { buffer in
            var low = trackedCount
            var high = buffer.count
            while low < high {
                let mid = (low &+ high) >> 1
                if buffer[mid] < id { low = mid &+ 1 } else { high = mid }
            }
            return low < buffer.count && buffer[low] == id ? low : -1
        }
    }

    /// A flag per indexed object, set for each of `ids` that is indexed: membership in a set of
    /// ids by position, built with one table lookup per id instead of a hash lookup per object
    /// (a million of either is most of what the dump's tallies and confirmation otherwise cost).
    package func flags(of ids: some Sequence<UInt64>) -> [Bool] {
        setFlags(ids)
    }

    /// ``flags(of:)`` of a set. The generic one, called from another module, is not specialised
    /// there: it walked a set of 400,000 ids through the protocol's witnesses, most of a big
    /// report's tallies. These overloads are specialised here.
    package func flags(of ids: Set<UInt64>) -> [Bool] {
        setFlags(ids)
    }

    /// ``flags(of:)`` of an array (see the set's overload).
    package func flags(of ids: [UInt64]) -> [Bool] {
        setFlags(ids)
    }

    private func setFlags(_ ids: some Sequence<UInt64>) -> [Bool] {
        var flags = [Bool](repeating: false, count: self.ids.count)
        for id in ids {
            let node = node(of: id)
            if node >= 0 { flags[node] = true }
        }
        return flags
    }

    /// The indexed ids that are in `ids`, in the index's order (ascending for a snapshot's
    /// objects): a fixed order for a set of ids without sorting it.
    package func inOrder(_ ids: some Sequence<UInt64>) -> [UInt64] {
        let flags = flags(of: ids)
        var ordered: [UInt64] = []
        ordered.reserveCapacity(ids.underestimatedCount)
        for position in flags.indices where flags[position] { ordered.append(self.ids[position]) }
        return ordered
    }
}
