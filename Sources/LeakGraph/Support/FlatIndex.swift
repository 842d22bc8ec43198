/// A map from nonzero 64-bit keys (addresses, ids) to positions, by open addressing in two flat
/// arrays: on the million-object paths of a snapshot a `Dictionary`'s generic hashing was the
/// largest single cost; this is one multiply and, usually, one probe.
struct FlatIndex {
    private var keys: [UInt64]
    private var values: [Int32]
    private let shift: UInt64

    /// An index for up to `capacity` keys (kept at most half full).
    init(capacity: Int) {
        var size = 16
        var bits: UInt64 = 4
        while size < 2 * capacity {
            size <<= 1
            bits += 1
        }
        keys = [UInt64](repeating: 0, count: size)
        values = [Int32](repeating: -1, count: size)
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
        let mask = keys.count - 1
        var index = slot(of: key)
        while keys[index] != 0 {
            if keys[index] == key { return }
            index = (index + 1) & mask
        }
        keys[index] = key
        values[index] = Int32(position)
    }

    /// The position of `key`, or nil.
    @inline(__always)
    func position(of key: UInt64) -> Int? {
        let mask = keys.count - 1
        var index = slot(of: key)
        while true {
            let found = keys[index]
            if found == key { return Int(values[index]) }
            if found == 0 { return nil }
            index = (index + 1) & mask
        }
    }
}
