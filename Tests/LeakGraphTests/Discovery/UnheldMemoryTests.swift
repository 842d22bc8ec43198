import CLeakGraphSupport
import Testing

@testable import LeakGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private final class Counted {}

@Suite("Reading memory a snapshot does not hold")
struct UnheldMemoryTests {
    @Test("a fault-safe copy of an unmapped page fails instead of crashing; of a mapped one, copies it")
    func copyOfUnmappedPageFails() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let page = try #require(mmap(nil, pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(page != MAP_FAILED)
        page.storeBytes(of: 0x1234_5678, as: UInt.self)
        var word: UInt = 0
        #expect(lg_safe_copy(&word, UInt(bitPattern: page), 8) == 8)
        #expect(word == 0x1234_5678)
        munmap(page, pageSize)
        word = 0
        #expect(lg_safe_copy(&word, UInt(bitPattern: page), 8) == 0)
        #expect(word == 0)
    }

    @Test("a copy stops at the end of what is mapped")
    func copyStopsAtTheEndOfTheMapping() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = try #require(mmap(nil, 2 * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        munmap(pages + pageSize, pageSize)
        defer { munmap(pages, pageSize) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        #expect(lg_safe_copy(buffer, UInt(bitPattern: pages + pageSize - 32), 64) == 32)
    }

    @Test("the strong count read from a copied header is the runtime's")
    func strongCountFromCopiedHeader() {
        var memory = UnheldMemory(copies: true, map: MemoryMap.current())
        defer { memory.freeCopies() }
        let object = Counted()
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        var extra: [Counted] = []
        for holders in 1...3 {
            let header = memory.read(address, count: 16)
            #expect(header.map(UnheldMemory.strongCount(header:)) == holders)
            extra.append(object)
        }
        withExtendedLifetime((object, extra)) {}
    }

    // In an unoptimised build (the thread-sanitizer job's) a typed load from a misaligned address
    // traps: a word read from freed memory must be refused before any such load.
    @Test("a misaligned word is never loaded as class metadata or as an async function's record")
    func misalignedWordsAreRefused() throws {
        let metadata = unsafeBitCast(Counted.self as AnyClass, to: UInt.self)
        let map = MemoryMap.current()
        try #require(map.isImage(metadata + 1, length: 16) && !map.isCode(metadata + 1))
        #expect(!HeldAddresses.isTrackedObjectClass(metadata + 1, map: map))
        #expect(!HeldAddresses.isTrackedObjectClass(metadata, map: map))
        #expect(HeldAddresses.isTrackedObjectClass(unsafeBitCast(TrackedObject.self, to: UInt.self), map: map))
        let walker = HeapWalker(trackedCount: 0, map: map, scanClosures: true) { _, _ in -1 }
        #expect(walker.functionAddress(metadata + 1) == metadata + 1)
        #expect(walker.functionAddress(metadata + 2) == metadata + 2)
    }

    @Test("copied, only metadata that can be checked is used as a type")
    func onlyCheckableMetadataIsUsed() {
        struct Plain { var a = 1 }
        enum Choice { case one, two(Int) }
        let structType = unsafeBitCast(Plain.self as Any.Type, to: UInt.self)
        let enumType = unsafeBitCast(Choice.self as Any.Type, to: UInt.self)
        let optionalType = unsafeBitCast(Int?.self as Any.Type, to: UInt.self)
        let tupleType = unsafeBitCast((Int, String).self as Any.Type, to: UInt.self)
        let functionType = unsafeBitCast((() -> Void).self as Any.Type, to: UInt.self)
        // The map after the types: the runtime may have mapped a new page for their metadata.
        var memory = UnheldMemory(copies: true, map: MemoryMap.current())
        defer { memory.freeCopies() }
        func usable(_ word: UInt) -> Bool { memory.isUsableType(word) }
        #expect(usable(structType))
        #expect(usable(enumType))
        #expect(usable(optionalType))
        // Tuples and functions are made by the runtime, never in an image: checked by their shape
        // (element and parameter types that are metadata-shaped), as a closure stored in an `Any`
        // needs.
        #expect(usable(tupleType))
        #expect(usable(functionType))
        // A heap word that is no metadata (an object's address) is refused, and so is garbage.
        let object = Counted()
        #expect(!usable(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())))
        #expect(!usable(0xdead_beef_0000))
        withExtendedLifetime(object) {}
    }
}
