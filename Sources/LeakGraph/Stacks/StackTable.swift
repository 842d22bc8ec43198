#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Deduplicated storage for raw allocation stacks: each distinct sequence of return addresses is
/// stored once in one flat buffer and named by a small integer id.
///
/// Not synchronised: the registry owns one and only touches it under its lock. Lookups hash the
/// frames (FNV-1a) into an open-addressing table, so interning an already-seen stack allocates
/// nothing.
struct StackTable {
    private(set) var frames: [UInt] = []
    private var starts: [Int32] = []
    private var counts: [UInt8] = []
    private var hashes: [UInt64] = []
    private var buckets: [Int32] = Array(repeating: -1, count: 1024)
    /// The most distinct stacks kept; past it, new stacks are dropped (and reported once).
    var capacity: Int
    private(set) var droppedCount = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { starts.count }

    /// Bytes used by the table's storage (frames, index and hash buckets).
    var byteCount: Int {
        frames.capacity * 8 + starts.capacity * 4 + counts.capacity + hashes.capacity * 8 + buckets.capacity * 4
    }

    static func hash(_ frames: UnsafeBufferPointer<UInt>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for frame in frames {
            hash = (hash ^ UInt64(frame)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Returns the id of `stack`, adding it when new; `nil` when the table is full.
    mutating func intern(_ stack: UnsafeBufferPointer<UInt>) -> Int32? {
        let hash = Self.hash(stack)
        var bucket = Int(truncatingIfNeeded: hash) & (buckets.count - 1)
        while true {
            let id = buckets[bucket]
            if id < 0 { break }
            if hashes[Int(id)] == hash, equals(Int(id), stack) { return id }
            bucket = (bucket + 1) & (buckets.count - 1)
        }
        guard starts.count < capacity else {
            droppedCount += 1
            return nil
        }
        let id = Int32(starts.count)
        starts.append(Int32(frames.count))
        counts.append(UInt8(stack.count))
        hashes.append(hash)
        frames.append(contentsOf: stack)
        buckets[bucket] = id
        if starts.count * 2 > buckets.count { grow() }
        return id
    }

    func stack(_ id: Int32) -> ArraySlice<UInt> {
        let start = Int(starts[Int(id)])
        return frames[start..<start + Int(counts[Int(id)])]
    }

    private func equals(_ id: Int, _ stack: UnsafeBufferPointer<UInt>) -> Bool {
        guard Int(counts[id]) == stack.count else { return false }
        guard let other = stack.baseAddress, !stack.isEmpty else { return true }
        let start = Int(starts[id])
        // One memcmp of the raw words: an element-wise loop over the array paid a bounds check
        // per frame (a third of interning a 32-frame stack).
        return frames.withUnsafeBufferPointer { stored in
            memcmp(stored.baseAddress! + start, other, stack.count * MemoryLayout<UInt>.stride) == 0
        }
    }

    private mutating func grow() {
        var newBuckets = [Int32](repeating: -1, count: buckets.count * 2)
        let mask = newBuckets.count - 1
        for id in 0..<starts.count {
            var bucket = Int(truncatingIfNeeded: hashes[id]) & mask
            while newBuckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
            newBuckets[bucket] = Int32(id)
        }
        buckets = newBuckets
    }
}
