#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key names (or string enumeration values) a reader looks for, as bytes, so that keys are
/// matched without creating a `String` for each one.
struct DumpFieldTable: Sendable {
    /// The names, in the caller's order: a match returns the index in this array.
    let names: [String]
    /// All names' UTF-8 back to back; name `i` is `flat[starts[i]..<starts[i + 1]]`. One flat
    /// buffer, because nested arrays cost a retain and release per comparison.
    private let flat: [UInt8]
    private let starts: [Int]
    /// For each name shorter than eight bytes (nearly every key of a dump: `id`, `type`, `from`…),
    /// its bytes and closing quote as one little-endian word, and the mask of those bytes: the
    /// expected key is then matched with one load and one comparison instead of a byte loop.
    private let quotedWords: [UInt64]
    private let quotedMasks: [UInt64]

    init(_ names: String...) {
        self.init(names)
    }

    init(_ names: [String]) {
        self.names = names
        var flat: [UInt8] = []
        var starts = [0]
        for name in names {
            flat += name.utf8
            starts.append(flat.count)
        }
        self.flat = flat
        self.starts = starts
        var quotedWords: [UInt64] = []
        var quotedMasks: [UInt64] = []
        for name in names {
            let bytes = Array(name.utf8) + [UInt8(ascii: "\"")]
            guard bytes.count <= 8 else {
                quotedWords.append(0)
                quotedMasks.append(0)
                continue
            }
            var word: UInt64 = 0
            for (offset, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * UInt64(offset)) }
            quotedWords.append(word)
            quotedMasks.append(bytes.count == 8 ? .max : (1 << (8 * UInt64(bytes.count))) - 1)
        }
        self.quotedWords = quotedWords
        self.quotedMasks = quotedMasks
    }

    /// The index of the name equal to `key`, or -1; `hint` is tried first because writers emit
    /// fields in a fixed order, so the next field is almost always the one after the last.
    func index(of key: UnsafeRawBufferPointer, hint: Int) -> Int {
        if hint >= 0 && hint < names.count && equal(hint, key) { return hint }
        for index in names.indices where index != hint && equal(index, key) { return index }
        return -1
    }

    /// If name `index` followed by a closing quote is at `pointer` (with `available` bytes
    /// readable), the number of bytes that covers; else nil. Lets the parser match the expected
    /// key without scanning it as a string first.
    @inline(__always)
    func quotedLength(of index: Int, at pointer: UnsafeRawPointer, available: Int) -> Int? {
        guard index >= 0 && index < names.count else { return nil }
        let mask = quotedMasks[index]
        if mask != 0 && available >= 8 {
            // Little-endian: the word's low bytes are the first ones in memory.
            let word = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
            guard word & mask == quotedWords[index] else { return nil }
            // The mask's bytes are the key's and its quote: counted from its top (a bit scan;
            // counting its bits took a dozen instructions without a popcount instruction).
            return (64 &- mask.leadingZeroBitCount) >> 3
        }
        let start = starts[index]
        let length = starts[index + 1] - start
        guard length < available, pointer.load(fromByteOffset: length, as: UInt8.self) == UInt8(ascii: "\"") else {
            return nil
        }
        let same = flat.withUnsafeBytes { names in
            guard let names = names.baseAddress else { return length == 0 }
            return Self.equal(names + start, pointer, length)
        }
        return same ? length + 1 : nil
    }

    /// Compares short byte runs inline: calling `memcmp` for a 2- to 17-byte key costs more
    /// than the comparison.
    @inline(__always)
    private static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ count: Int) -> Bool {
        guard count >= 8 else {
            for offset in 0..<count
            where left.load(fromByteOffset: offset, as: UInt8.self)
                != right.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }
        var offset = 0
        while offset &+ 8 <= count {
            guard
                left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset &+= 8
        }
        // The last word overlaps the previous one rather than reading past the end.
        return offset == count
            || left.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    }

    private func equal(_ index: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index]
        let length = starts[index + 1] - start
        guard length == key.count else { return false }
        for offset in 0..<length where flat[start + offset] != key[offset] { return false }
        return true
    }
}
