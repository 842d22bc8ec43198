/// A map from nonzero 64-bit keys (addresses, ids) to positions, by open addressing in one flat
/// array: on the million-object paths of a snapshot a `Dictionary`'s generic hashing was the
/// largest single cost; this is one multiply and, usually, one probe.
///
/// Each key sits next to its position (16 bytes a slot), so a probe touches one cache line: with
/// keys and positions in two arrays, indexing a million addresses (random, so every probe
/// misses the cache) took two misses per insert.
struct FlatIndex {
    private struct Entry {
        var key: UInt64
        var position: Int32
    }

    private var entries: [Entry]
    private let shift: UInt64

    /// An index for up to `capacity` keys (kept at most half full).
    init(capacity: Int) {
        var size = 16
        var bits: UInt64 = 4
        while size < 2 * capacity {
            size <<= 1
            bits += 1
        }
        entries = [Entry](repeating: Entry(key: 0, position: -1), count: size)
        shift = 64 - bits
    }

    @inline(__always)
    private func slot(of key: UInt64) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the key.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// Sets the position of `key` (nonzero); a key inserted twice keeps its first position.
    mutating func insert(_ key: UInt64, position: Int) {
        precondition(key != 0, "FlatIndex keys are nonzero")
        let mask = entries.count - 1
        var index = slot(of: key)
        while entries[index].key != 0 {
            if entries[index].key == key { return }
            index = (index + 1) & mask
        }
        entries[index] = Entry(key: key, position: Int32(position))
    }

    /// The position of `key`, or nil.
    @inline(__always)
    func position(of key: UInt64) -> Int? {
        let mask = entries.count - 1
        var index = slot(of: key)
        while true {
            let entry = entries[index]
            if entry.key == key { return Int(entry.position) }
            if entry.key == 0 { return nil }
            index = (index + 1) & mask
        }
    }
}
