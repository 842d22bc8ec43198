#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's memory mappings, read from `/proc/self/maps`, so that the closure scanner only
/// reads memory that is mapped and readable, and can tell code addresses from data.
struct MemoryMap {
    struct Region {
        let start: UInt
        let end: UInt
        let readable: Bool
        let writable: Bool
        let executable: Bool
        /// Mapped from a file (an executable or a library): never unmapped while the image stays
        /// loaded, unlike heap memory.
        let isImage: Bool
    }

    private(set) var regions: [Region] = []

    /// Reads the current mappings; empty where `/proc` is unavailable (the scanner then finds
    /// nothing rather than guess).
    static func current() -> MemoryMap {
        var map = MemoryMap()
        guard let file = fopen("/proc/self/maps", "r") else { return map }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let fields = text.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 2 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16) else {
                continue
            }
            let permissions = Array(fields[1].utf8)
            guard permissions.count >= 3 else { continue }
            map.regions.append(
                Region(
                    start: start, end: end, readable: permissions[0] == UInt8(ascii: "r"),
                    writable: permissions[1] == UInt8(ascii: "w"), executable: permissions[2] == UInt8(ascii: "x"),
                    isImage: fields.count == 6 && fields[5].drop(while: { $0 == " " }).hasPrefix("/")))
        }
        map.regions.sort { $0.start < $1.start }
        return map
    }

    func region(containing address: UInt) -> Region? {
        var low = 0
        var high = regions.count
        while low < high {
            let mid = (low + high) / 2
            if regions[mid].end <= address { low = mid + 1 } else { high = mid }
        }
        guard low < regions.count, regions[low].start <= address else { return nil }
        return regions[low]
    }

    /// Bytes readable from `address` within one readable mapping (0 when not mapped).
    func readableBytes(at address: UInt) -> UInt {
        guard let region = region(containing: address), region.readable else { return 0 }
        return region.end - address
    }

    /// Whether a word (metadata, a class's superclass) can be loaded at `address`: readable and
    /// 8-aligned. A word read from memory may point anywhere, and a typed load from a misaligned
    /// address traps in an unoptimised build.
    func holdsWord(at address: UInt) -> Bool {
        address % 8 == 0 && readableBytes(at: address) >= 8
    }

    /// Whether `address` is in read-write data memory (where heap objects live).
    func isHeapLike(_ address: UInt, length: UInt) -> Bool {
        guard address % 8 == 0, let region = region(containing: address), region.readable, region.writable,
            !region.executable
        else { return false }
        return region.end - address >= length
    }

    /// Whether `length` bytes at `address` lie in a readable mapping of a loaded image (where the
    /// compiler's metadata and descriptors of non-generic types live).
    func isImage(_ address: UInt, length: UInt) -> Bool {
        guard let region = region(containing: address), region.readable, region.isImage else { return false }
        return region.end - address >= length
    }

    func isCode(_ address: UInt) -> Bool {
        guard let region = region(containing: address) else { return false }
        return region.executable
    }
}
