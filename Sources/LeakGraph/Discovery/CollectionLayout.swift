import CLeakGraphSupport

/// The native storage layouts of `Array`, `Dictionary` and `Set` (stable ABI on Linux, where
/// there is no Objective-C bridging), read in place so that a walk copies nothing, retains
/// nothing and calls no code of the element types.
///
/// - Array storage: heap object header (16), `count` (8), `capacityAndFlags` (8), elements from 32.
/// - Dictionary storage: header, `count`, `capacity`, `scale` (1 byte at 32), …, `rawKeys` (48),
///   `rawValues` (56), then the occupancy bitmap of `1 << scale` buckets (64).
/// - Set storage: the same up to `seed`, `rawElements` (48), bitmap (56).
///
/// The offsets are checked once against collections made for the purpose; if the runtime lays
/// them out otherwise, collections are not walked and say so (``isValid``).
enum CollectionLayout {
    static let arrayCountOffset = 16
    static let arrayElementsOffset = 32
    static let hashedCountOffset = 16
    static let hashedScaleOffset = 32
    static let dictionaryKeysOffset = 48
    static let dictionaryValuesOffset = 56
    static let dictionaryBitmapOffset = 64
    static let setElementsOffset = 48
    static let setBitmapOffset = 56

    /// Whether the layouts above match this runtime.
    static let isValid: Bool = validate()

    /// The occupied buckets of a hashed storage, in order.
    /// nil when the storage does not look like one (or `readable`, the bytes known to be mapped
    /// from `storage` on, is too short for its bitmap).
    static func occupiedBuckets(storage: UnsafeRawPointer, bitmapOffset: Int, readable: UInt = .max) -> [Int]? {
        let scale = Int(storage.load(fromByteOffset: hashedScaleOffset, as: Int8.self))
        let count = storage.load(fromByteOffset: hashedCountOffset, as: Int.self)
        guard scale >= 0, scale < 48, count >= 0, count <= 1 << scale else { return nil }
        let buckets = 1 << scale
        let words = (buckets + 63) / 64
        guard readable >= UInt(bitmapOffset + words * 8) else { return nil }
        var occupied: [Int] = []
        occupied.reserveCapacity(count)
        for word in 0..<words {
            var bits = storage.load(fromByteOffset: bitmapOffset + word * 8, as: UInt.self)
            // Bits past the last bucket are set (a sentinel for the standard library's iterator).
            if word == words - 1 && buckets % 64 != 0 { bits &= (1 << UInt(buckets % 64)) - 1 }
            while bits != 0 {
                let bit = bits.trailingZeroBitCount
                occupied.append(word * 64 + bit)
                bits &= bits - 1
            }
        }
        return occupied.count == count ? occupied : nil
    }

    private static func storage(of value: some Any) -> UnsafeRawPointer {
        withUnsafeBytes(of: value) { $0.load(as: UnsafeRawPointer.self) }
    }

    private final class Marker {}

    private static func validate() -> Bool {
        let marker = Marker()
        let address = UInt(bitPattern: Unmanaged.passUnretained(marker).toOpaque())
        let array: [AnyObject] = [marker, marker, marker]
        let dictionary: [Int: AnyObject] = [7: marker]
        let set: Set<Int> = [1, 2, 3]
        return withExtendedLifetime((array, dictionary, set, marker)) {
            let arrayStorage = storage(of: array)
            guard arrayStorage.load(fromByteOffset: arrayCountOffset, as: Int.self) == 3,
                arrayStorage.load(fromByteOffset: arrayElementsOffset + 16, as: UInt.self) == address
            else { return false }
            let dictionaryStorage = storage(of: dictionary)
            guard let buckets = occupiedBuckets(storage: dictionaryStorage, bitmapOffset: dictionaryBitmapOffset),
                buckets.count == 1,
                let keys = dictionaryStorage.load(fromByteOffset: dictionaryKeysOffset, as: UnsafeRawPointer?.self),
                let values = dictionaryStorage.load(fromByteOffset: dictionaryValuesOffset, as: UnsafeRawPointer?.self),
                keys.load(fromByteOffset: buckets[0] * 8, as: Int.self) == 7,
                values.load(fromByteOffset: buckets[0] * 8, as: UInt.self) == address
            else { return false }
            let setStorage = storage(of: set)
            guard let setBuckets = occupiedBuckets(storage: setStorage, bitmapOffset: setBitmapOffset),
                let elements = setStorage.load(fromByteOffset: setElementsOffset, as: UnsafeRawPointer?.self)
            else { return false }
            let found = Set(setBuckets.map { elements.load(fromByteOffset: $0 * 8, as: Int.self) })
            return found == [1, 2, 3]
        }
    }
}
