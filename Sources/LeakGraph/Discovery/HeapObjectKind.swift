/// What a heap object is, read from the first word of its metadata: a class instance, a heap
/// local variable (a closure context or a `var` box, whose layout is a capture descriptor), or
/// anything else the runtime allocates (generic boxes, error boxes, tasks).
enum HeapObjectKind: Equatable {
    case classInstance
    case heapLocalVariable
    case other

    /// The metadata kind of a Swift concurrency task (`AsyncTask`, allocated by the runtime with
    /// `malloc`, reference counted like an object).
    static let taskMetadataKind: UInt = 0x502

    init(metadata: UnsafeRawPointer) {
        switch metadata.load(as: UInt.self) {
        // Swift classes have kind 0; on Apple platforms an Objective-C isa pointer sits there.
        case 0, 0x800...: self = .classInstance
        case 0x400: self = .heapLocalVariable
        default: self = .other
        }
    }

    /// Whether the metadata at `address` is still there to be read: mapped, and for a class its
    /// nominal type descriptor in a loaded image. A library `dlclose`d while objects of its types
    /// live takes their metadata (or, for generic classes, their descriptors) with it; reading
    /// it faults, so nothing asks the runtime about such a type.
    static func isLoaded(_ address: UInt, map: MemoryMap) -> Bool {
        guard map.holdsWord(at: address),
            let metadata = UnsafeRawPointer(bitPattern: address)
        else { return false }
        switch metadata.load(as: UInt.self) {
        case 0, 0x800...: return isClassMetadata(metadata, map: map)
        default: return true
        }
    }

    /// The name a snapshot gives an object whose type's library was unloaded.
    static let unloadedTypeName = "(type unloaded with its library)"

    /// Whether readable `metadata` is a Swift class's metadata: its kind word says class and its
    /// nominal type descriptor, in a loaded image, says class too. (Generic classes' metadata is
    /// made at run time; their descriptor is still the compiler's.)
    static func isClassMetadata(_ metadata: UnsafeRawPointer, map: MemoryMap) -> Bool {
        let descriptionOffset = ClassMetadataLayout.descriptionOffset
        let address = UInt(bitPattern: metadata)
        guard map.readableBytes(at: address) >= UInt(descriptionOffset + 8) else { return false }
        let kind = metadata.load(as: UInt.self)
        guard kind == 0 || kind >= 0x800 else { return false }
        return hasClassDescriptor(metadata, map: map)
    }

    /// Whether the class metadata readable at `metadata` (in place, or a copy) names a class's
    /// nominal type descriptor in a loaded image.
    static func hasClassDescriptor(_ metadata: UnsafeRawPointer, map: MemoryMap) -> Bool {
        let descriptor = metadata.load(fromByteOffset: ClassMetadataLayout.descriptionOffset, as: UInt.self)
        guard descriptor % 4 == 0, map.isImage(descriptor, length: 4),
            let pointer = UnsafeRawPointer(bitPattern: descriptor)
        else { return false }
        return pointer.load(as: UInt32.self) & 0x1F == 16
    }
}

/// Where Swift class metadata keeps what discovery reads (no Objective-C interop on Linux: its
/// three words of cache and data pointer are absent there).
enum ClassMetadataLayout {
    #if os(Linux)
        /// The nominal type descriptor.
        static let descriptionOffset = 40
        /// The instance size (32 bits).
        static let instanceSizeOffset = 24
        /// The instance alignment mask (16 bits).
        static let alignMaskOffset = 28
    #else
        static let descriptionOffset = 64
        static let instanceSizeOffset = 48
        static let alignMaskOffset = 52
    #endif
}
