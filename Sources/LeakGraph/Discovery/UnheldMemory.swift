import CLeakGraphSupport

/// How a walk reads heap memory that its snapshot does not hold: array, dictionary and set
/// storage, existential and generic boxes, closure contexts nobody recorded.
///
/// A field of a held object can be reassigned by another thread at any moment, and the storage
/// it pointed at freed (and its pages even unmapped) while the walk is inside it. Two modes:
/// - **in place** (snapshots of tracked objects, taken at quiet points): the memory is read
///   where it is, after checking that it is mapped;
/// - **copied** (whole-process snapshots, where every thread's objects are in the graph): the
///   bytes are first copied by the kernel (``lg_safe_copy``), which reports an unreadable page
///   instead of faulting, and the walk reads the copy. A copy of freed memory holds stale
///   words; they are only ever *compared* with the addresses of held objects, and the type
///   metadata a copy names is checked before the runtime is asked about it
///   (``isUsableType(_:)``), so stale data can cost an edge, never a crash.
struct UnheldMemory {
    /// Whether unheld memory is copied before it is read (see the type's documentation).
    let copies: Bool
    let map: MemoryMap
    /// How many copies the walk made (a figure for benchmarks and tests).
    private(set) var copyCount = 0
    private var scratch: [UnsafeMutableRawPointer] = []
    /// Metadata known to be real: the classes of held objects, and metadata checked before.
    private var usableTypes: Set<UInt> = []

    /// The most bytes one read copies: larger storage is read in place only when not copying;
    /// copied, it is left out and counted as a limit by the caller.
    static let largestCopy = 256 << 20

    init(copies: Bool, map: MemoryMap) {
        self.copies = copies
        self.map = map
    }

    /// `count` bytes at `address` (a heap address: 8-byte aligned, in read-write memory),
    /// readable until ``freeCopies()``; nil when they cannot be read.
    mutating func read(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count > 0, address != 0, map.isHeapLike(address, length: UInt(count)) else { return nil }
        guard copies else { return UnsafeRawPointer(bitPattern: address) }
        guard count <= Self.largestCopy else { return nil }
        return copy(address, count: count)
    }

    /// `count` bytes at `address` through a fault-safe copy whatever the mode: for words read
    /// conservatively (no type says they are references), which may point anywhere — into
    /// memory that was freed, or between two allocations.
    mutating func copyOf(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count > 0, count <= Self.largestCopy, address != 0, map.isHeapLike(address, length: UInt(count)) else {
            return nil
        }
        return copy(address, count: count)
    }

    /// `count` bytes at `address` in any readable mapping (an image's too) through a fault-safe
    /// copy: for a word that only may be metadata, read where the address sanitizer would see an
    /// in-place read of an image's global as out of bounds.
    mutating func copyOfReadable(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count > 0, address != 0, map.readableBytes(at: address) >= UInt(count) else { return nil }
        return copy(address, count: count)
    }

    /// A copy of `count` bytes of the class's nominal type descriptor at `address` (in an image,
    /// of kind class), nil when it is not one: for a word that only may be a class's metadata.
    mutating func classDescriptorCopy(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        guard address % 4 == 0, count >= 4, map.isImage(address, length: UInt(count)),
            let descriptor = copyOfReadable(address, count: count),
            descriptor.load(as: UInt32.self) & 0x1F == 16
        else { return nil }
        return descriptor
    }

    /// `count` bytes of metadata or descriptors at `address` (static or permanent memory of the
    /// runtime, never freed), readable until ``freeCopies()``; nil when they cannot be read.
    mutating func readMetadata(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count > 0, address != 0, address % 8 == 0, map.readableBytes(at: address) >= UInt(count) else {
            return nil
        }
        // In an image, or known: read in place (an image stays mapped). Elsewhere the word may be
        // stale (read from a copy of freed memory): copied by the kernel, so that a wrong address
        // cannot fault.
        guard copies, !usableTypes.contains(address) else { return UnsafeRawPointer(bitPattern: address) }
        if map.isImage(address, length: UInt(count)) {
            // A word that only may be metadata can point between two of an image's globals, which
            // the address sanitizer takes for an out-of-bounds read of the one before: copied
            // plainly in such a build.
            return Self.sanitizingAddresses ? imageCopy(address, count: count) : UnsafeRawPointer(bitPattern: address)
        }
        return copy(address, count: count)
    }

    /// Whether LeakGraph was built with the address sanitizer.
    private static let sanitizingAddresses = lg_built_with_address_sanitizer() != 0

    /// The 32-bit word of an image at `pointer` (4-byte aligned): in place, or through an
    /// uninstrumented copy in an address-sanitized build (see ``readMetadata(_:count:)``).
    private static func imageWord32(at pointer: UnsafeRawPointer) -> UInt32 {
        guard sanitizingAddresses else { return pointer.load(as: UInt32.self) }
        var word: UInt32 = 0
        withUnsafeMutableBytes(of: &word) { lg_copy_from_image($0.baseAddress!, UInt(bitPattern: pointer), 4) }
        return word
    }

    /// A copy of `count` bytes of an image's memory at `address`, kept until ``freeCopies()``.
    private mutating func imageCopy(_ address: UInt, count: Int) -> UnsafeRawPointer {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        copyCount += 1
        lg_copy_from_image(copy, address, count)
        scratch.append(copy)
        return UnsafeRawPointer(copy)
    }

    /// A fault-safe copy of `count` bytes at `address`, kept until ``freeCopies()``; nil when
    /// not all of them could be read.
    private mutating func copy(_ address: UInt, count: Int) -> UnsafeRawPointer? {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        copyCount += 1
        guard lg_safe_copy(copy, address, count) == count else {
            copy.deallocate()
            return nil
        }
        scratch.append(copy)
        return UnsafeRawPointer(copy)
    }

    /// The strong retain count of the object whose header is at `header` (read from a copy or
    /// in place), or nil when it is not kept inline (a side table, an immortal or dying object).
    ///
    /// Inline counts on 64-bit platforms: bit 63 says the word is a side table or the object is
    /// immortal, bit 32 that it is deinitialising, bits 33–62 hold the strong count less one.
    static func strongCount(header: UnsafeRawPointer) -> Int? {
        let bits = header.load(fromByteOffset: 8, as: UInt.self)
        guard bits >> 63 == 0, bits & (1 << 32) == 0 else { return nil }
        return Int((bits >> 33) & ((1 << 30) - 1)) + 1
    }

    /// Notes metadata known to be real (the class of a held object).
    mutating func trust(type metadata: UInt) {
        usableTypes.insert(metadata)
    }

    /// Whether the runtime may be asked about `word` as type metadata.
    ///
    /// In place, any readable address (the value was read from a quiet heap). Copied, the word
    /// may be stale: it must be metadata known to be real, a struct, enum or optional whose
    /// nominal descriptor lies in a loaded image and agrees with the metadata's kind, a class
    /// whose descriptor does, or a function or tuple whose parts are metadata-shaped. Anything
    /// else is not used: what it holds counts as held from outside (and is said, as unread).
    mutating func isUsableType(_ word: UInt) -> Bool {
        isUsableType(word, depth: 0)
    }

    /// ``isUsableType(_:)`` inside a class check `depth` classes deep (a generic argument's).
    private mutating func isUsableType(_ word: UInt, depth: Int) -> Bool {
        guard word != 0, word % 8 == 0 else { return false }
        guard copies else { return map.readableBytes(at: word) >= 8 }
        if usableTypes.contains(word) { return true }
        guard let header = readMetadata(word, count: 16) else { return false }
        let kind = header.load(as: UInt.self)
        if kind == 0x302 || kind == 0x301 || kind == 0 {
            guard isPlausibleStructuralMetadata(word, kind: kind, depth: depth) else { return false }
            usableTypes.insert(word)
            return true
        }
        let descriptor = header.load(fromByteOffset: 8, as: UInt.self)
        guard kind == 0x200 || kind == 0x201 || kind == 0x202, descriptor % 4 == 0,
            map.isImage(descriptor, length: 4), let pointer = UnsafeRawPointer(bitPattern: descriptor)
        else { return false }
        let descriptorKind = Self.imageWord32(at: pointer) & 0x1F
        guard (kind == 0x200 && descriptorKind == 17) || (kind != 0x200 && descriptorKind == 18) else { return false }
        usableTypes.insert(word)
        return true
    }

    /// Whether a function (0x302), tuple (0x301) or class (0) metadata word holds up: the
    /// runtime makes the first two on demand (never in an image), so they are checked by shape —
    /// a function's parameter count and result type, a tuple's element count and element types,
    /// a class's nominal descriptor in an image. A closure stored in an `Any` (a thick function
    /// in an existential) needs the first.
    private mutating func isPlausibleStructuralMetadata(_ word: UInt, kind: UInt, depth: Int) -> Bool {
        func isMetadataWord(_ candidate: UInt) -> Bool {
            candidate != 0 && map.holdsWord(at: candidate)
        }
        switch kind {
        case 0x302:
            guard let function = readMetadata(word, count: 24) else { return false }
            let flags = function.load(fromByteOffset: 8, as: UInt.self)
            let parameters = Int(flags & 0xFFFF)
            guard parameters < 64, isMetadataWord(function.load(fromByteOffset: 16, as: UInt.self)),
                let all = readMetadata(word, count: 24 + parameters * 8)
            else { return false }
            return (0..<parameters).allSatisfy { isMetadataWord(all.load(fromByteOffset: 24 + $0 * 8, as: UInt.self)) }
        case 0x301:
            guard let tuple = readMetadata(word, count: 24) else { return false }
            let count = tuple.load(fromByteOffset: 8, as: Int.self)
            // Elements: (type, offset) pairs after the labels word.
            guard count >= 0, count < 1024, let all = readMetadata(word, count: 24 + count * 16) else { return false }
            return (0..<count).allSatisfy { isMetadataWord(all.load(fromByteOffset: 24 + $0 * 16, as: UInt.self)) }
        default:
            return isCheckedClassMetadata(word, depth: depth)
        }
    }

    /// Whether a class metadata word (kind 0) read from a copy holds up all the way the runtime
    /// will go when it names the class or walks its superclasses: its nominal descriptor is one a
    /// loaded image registered (not merely bytes in an image shaped like one: a stale stack word
    /// pointing into an image's data passed that, and the runtime crashed naming it), its
    /// superclass chain checks out the same way, and a generic class's type arguments are usable
    /// types. Where the registered descriptors cannot be listed, the descriptor's shape decides.
    private mutating func isCheckedClassMetadata(_ word: UInt, depth: Int) -> Bool {
        if usableTypes.contains(word) { return true }
        let descriptionOffset = ClassMetadataLayout.descriptionOffset
        guard depth < Self.deepestClassCheck, word % 8 == 0,
            let cls = readMetadata(word, count: descriptionOffset + 8), cls.load(as: UInt.self) == 0
        else { return false }
        let descriptorWord = cls.load(fromByteOffset: descriptionOffset, as: UInt.self)
        // Flags to the immediate members' count, then the fields' count and offset vector's: the
        // generic header follows at 44 (see genericArgumentsAreUsable).
        guard let descriptor = classDescriptorCopy(descriptorWord, count: 44) else { return false }
        switch lg_is_class_descriptor(descriptorWord) {
        case 0: return false
        case 1: break
        default: return true
        }
        let superclass = cls.load(fromByteOffset: Self.superclassOffset, as: UInt.self)
        if superclass != 0 {
            guard isCheckedClassMetadata(superclass, depth: depth + 1) else { return false }
        }
        if descriptor.load(as: UInt32.self) & 0x80 != 0 {
            guard genericArgumentsAreUsable(of: word, descriptor: descriptor, at: descriptorWord, depth: depth)
            else { return false }
        }
        usableTypes.insert(word)
        return true
    }

    /// How many classes (superclasses and generic arguments) one check may go through: real
    /// hierarchies are a few deep; a stale word may loop.
    private static let deepestClassCheck = 16

    /// Where class metadata keeps its superclass (after the kind word).
    private static let superclassOffset = 8

    /// Whether the key type arguments a generic class's metadata at `word` holds are usable
    /// types (the runtime reads them to name the class and to resolve its fields' types).
    /// `descriptor` is a copy of the registered class descriptor at `address`: after its fixed
    /// 44 bytes come the instantiation cache and pattern (8 bytes), then the generic header —
    /// parameter count, requirement count, key argument count, flags (16 bits each) — and one
    /// byte per parameter (bit 7: a key argument; low 6 bits: its kind, 0 for a type).
    private mutating func genericArgumentsAreUsable(
        of word: UInt, descriptor: UnsafeRawPointer, at address: UInt, depth: Int
    ) -> Bool {
        // A resilient superclass places the arguments where only the runtime knows.
        let hasResilientSuperclass = (descriptor.load(as: UInt32.self) >> 16) & (1 << 13) != 0
        let parametersOffset = 60
        guard !hasResilientSuperclass, let header = classDescriptorCopy(address, count: parametersOffset) else {
            return false
        }
        let parameterCount = Int(header.load(fromByteOffset: 52, as: UInt16.self))
        let keyArgumentCount = Int(header.load(fromByteOffset: 56, as: UInt16.self))
        let positiveWords = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
        let immediateMembers = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
        let argumentOffset = (positiveWords - immediateMembers) * 8
        guard parameterCount <= 64, keyArgumentCount <= 256,
            argumentOffset > ClassMetadataLayout.descriptionOffset, argumentOffset < 4096,
            let parameters = classDescriptorCopy(address, count: parametersOffset + parameterCount),
            let arguments = readMetadata(word, count: argumentOffset + keyArgumentCount * 8)
        else { return false }
        var slot = 0
        for index in 0..<parameterCount {
            let parameter = parameters.load(fromByteOffset: parametersOffset + index, as: UInt8.self)
            guard parameter & 0x80 != 0 else { continue }
            guard slot < keyArgumentCount else { return false }
            if parameter & 0x3F == 0 {
                let argument = arguments.load(fromByteOffset: argumentOffset + slot * 8, as: UInt.self)
                guard isUsableType(argument, depth: depth + 1) else { return false }
            }
            slot += 1
        }
        return true
    }

    /// Frees the copies made so far.
    mutating func freeCopies() {
        for copy in scratch { copy.deallocate() }
        scratch.removeAll(keepingCapacity: true)
    }
}
