import Foundation
import LeakGraph
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Membership of object ids: a bitmap when ids are dense (as allocation-order ids are), else a
/// binary search of the sorted ids.
struct IDSet {
    let sortedIDs: [UInt64]
    let minimum: UInt64
    let bits: [UInt64]

    init(sortedIDs: [UInt64]) {
        self.sortedIDs = sortedIDs
        guard let first = sortedIDs.first, let last = sortedIDs.last else {
            minimum = 0
            bits = []
            return
        }
        minimum = first
        // At most 64 bits per object: 8 bytes per object, like the sorted array itself.
        let span = last - first
        guard span / 64 <= UInt64(sortedIDs.count) else {
            bits = []
            return
        }
        var bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
        for id in sortedIDs {
            let offset = id - first
            bits[Int(offset / 64)] |= 1 << (offset % 64)
        }
        self.bits = bits
    }

    func contains(_ id: UInt64) -> Bool {
        if !bits.isEmpty {
            guard id >= minimum else { return false }
            let offset = id - minimum
            let word = offset / 64
            guard word < UInt64(bits.count) else { return false }
            return bits[Int(word)] & (1 << (offset % 64)) != 0
        }
        var low = 0
        var high = sortedIDs.count
        while low < high {
            let middle = low + (high - low) / 2
            if sortedIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sortedIDs.count && sortedIDs[low] == id
    }
}
