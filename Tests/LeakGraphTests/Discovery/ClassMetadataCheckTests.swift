import CLeakGraphSupport
import Testing

@testable import LeakGraph

private final class Plain {}
private final class Box<Element> {
    var element: Element?
}
private struct Value { var number = 1 }

/// A class's metadata word found in memory nothing holds (a global's integer, a stale stack
/// slot) is checked before the runtime names the class or walks its superclasses: the fakes here
/// are copies of real metadata with one word changed, at addresses the runtime never made.
@Suite("Class metadata read from memory nothing holds")
struct ClassMetadataCheckTests {
    #if os(Linux)
        @Test("the registered class descriptors are the classes', not a struct's")
        func registeredClassDescriptors() {
            #expect(lg_is_class_descriptor(descriptor(of: Plain.self)) == 1)
            #expect(lg_is_class_descriptor(descriptor(of: Box<Plain>.self)) == 1)
            let structDescriptor = unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self)
                .load(fromByteOffset: 8, as: UInt.self)
            #expect(lg_is_class_descriptor(structDescriptor) == 0)
            #expect(lg_is_class_descriptor(0) == 0)
        }

        @Test("a copy of a class's metadata is usable; one whose descriptor is only shaped like one is not")
        func unregisteredDescriptorIsRefused() throws {
            let real = metadataWord(Plain.self)
            let copy = try #require(Copy.of(real))
            let shapedLikeOne = try unregisteredClassShapedWord()
            let fake = try #require(Copy.of(real))
            fake.store(shapedLikeOne, at: ClassMetadataLayout.descriptionOffset)
            let usable = usability(of: copy, fake)
            #expect(usable[0])
            #expect(!usable[1])
        }

        @Test("a class whose superclass word is not a checked class is refused")
        func badSuperclassIsRefused() throws {
            let real = metadataWord(Plain.self)
            let garbage = try #require(Copy.of(real))
            garbage.store(try unregisteredClassShapedWord(), at: ClassMetadataLayout.descriptionOffset)
            let fake = try #require(Copy.of(real))
            fake.store(garbage.address, at: 8)
            let usable = usability(of: fake)
            #expect(!usable[0])
            withExtendedLifetime(garbage) {}
        }

        @Test("a generic class's metadata is usable only while its type arguments are")
        func genericArgumentsAreChecked() throws {
            let real = metadataWord(Box<Plain>.self)
            let argument = metadataWord(Plain.self)
            let copy = try #require(Copy.of(real))
            // The argument's slot: the one word of the copy that holds Plain's metadata.
            let slots = (ClassMetadataLayout.descriptionOffset / 8 + 1..<Copy.size / 8).filter {
                copy.load(at: $0 * 8) == argument
            }
            let slot = try #require(slots.first)
            let fake = try #require(Copy.of(real))
            fake.store(0xdead_beef_0000, at: slot * 8)
            let usable = usability(of: copy, fake)
            #expect(usable[0])
            #expect(!usable[1])
        }
    #endif

    /// Whether a whole-process walk would use each copy's address as type metadata (read through
    /// fault-safe copies, as a snapshot reads memory nothing holds).
    private func usability(of copies: Copy...) -> [Bool] {
        var memory = UnheldMemory(copies: true, map: MemoryMap.current())
        defer { memory.freeCopies() }
        return withExtendedLifetime(copies) { copies.map { memory.isUsableType($0.address) } }
    }

    private func metadataWord(_ type: AnyClass) -> UInt {
        unsafeBitCast(type, to: UInt.self)
    }

    private func descriptor(of type: AnyClass) -> UInt {
        UnsafeRawPointer(bitPattern: metadataWord(type))!.load(
            fromByteOffset: ClassMetadataLayout.descriptionOffset, as: UInt.self)
    }

    /// An address in an image whose 32-bit word says "class descriptor" in its low five bits
    /// but which no image registered: found after `Plain`'s descriptor.
    private func unregisteredClassShapedWord() throws -> UInt {
        let map = MemoryMap.current()
        let start = descriptor(of: Plain.self)
        for address in stride(from: start + 4, to: start + 65_536, by: 4) {
            guard map.isImage(address, length: 44), let pointer = UnsafeRawPointer(bitPattern: address) else {
                break
            }
            if pointer.load(as: UInt32.self) & 0x1F == 16, lg_is_class_descriptor(address) == 0 { return address }
        }
        throw Unfound()
    }

    private struct Unfound: Error {}

    /// A heap copy of the bytes at a metadata address, which a test may change.
    private final class Copy {
        static let size = 256
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        var address: UInt { UInt(bitPattern: buffer) }

        /// Nil when the bytes cannot all be read.
        static func of(_ metadata: UInt) -> Copy? {
            let copy = Copy()
            return lg_safe_copy(copy.buffer, metadata, size) == size ? copy : nil
        }

        deinit { buffer.deallocate() }

        func load(at offset: Int) -> UInt { buffer.load(fromByteOffset: offset, as: UInt.self) }
        func store(_ word: UInt, at offset: Int) { buffer.storeBytes(of: word, toByteOffset: offset, as: UInt.self) }
    }
}
