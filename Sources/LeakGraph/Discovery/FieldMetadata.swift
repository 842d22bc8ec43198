/// How a stored property refers to what it holds, read from the type's field descriptor.
///
/// `Mirror` cannot tell a `weak var` from an `Optional` nor `unowned` from strong, and loading a
/// dead `unowned` reference through it traps; the field descriptor's mangled type says which
/// (`Xw` weak, `Xo` unowned, `Xu` unowned(unsafe)).
enum FieldOwnership: Sendable {
    case strong, weak, unowned, unownedUnsafe
}

/// The ownership of each stored field of one nominal type, from its field descriptor; nil when
/// it has none or it looks malformed (a class without a descriptor has no fields of its own).
func descriptorOwnerships(metadata: UnsafeRawPointer, isClass: Bool) -> [FieldOwnership]? {
    descriptorFieldTypeNames(metadata: metadata, isClass: isClass)?.map { $0.map(ownership(ofMangledType:)) ?? .strong }
}

/// Whether a field's mangled type names the empty tuple (`yt`). Reflection reports a field
/// whose type it cannot hand out as `Any.Type` (a noncopyable one: `Mutex`, `Atomic`) as `()`;
/// a field declared `()` is the only one whose name says so.
func mangledNameIsEmptyTuple(_ name: UnsafeRawPointer?) -> Bool {
    guard let name else { return false }
    return mangledNameLength(name) == 2 && name.load(as: UInt8.self) == UInt8(ascii: "y")
        && name.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: "t")
}

/// The mangled type name of each stored field of one nominal type (nil for a record without
/// one), from its field descriptor; nil when it has none or it looks malformed.
func descriptorFieldTypeNames(metadata: UnsafeRawPointer, isClass: Bool) -> [UnsafeRawPointer?]? {
    let descriptionOffset = isClass ? ClassMetadataLayout.descriptionOffset : 8
    guard let descriptor = metadata.load(fromByteOffset: descriptionOffset, as: UnsafeRawPointer?.self),
        let fields = relativeTarget(descriptor + 16)
    else { return isClass ? [] : nil }
    let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
    let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
    guard recordSize >= 12, count < 10_000 else { return nil }
    return (0..<count).map { relativeTarget(fields + 16 + $0 * recordSize + 4) }
}

/// The length of a mangled type name, stepping over symbolic references (whose operands may
/// contain zero bytes).
func mangledNameLength(_ name: UnsafeRawPointer) -> Int {
    var index = 0
    while index < 4096 {
        let byte = name.load(fromByteOffset: index, as: UInt8.self)
        if byte == 0 { return index }
        if (0x01...0x17).contains(byte) {
            index += 5
        } else if (0x18...0x1F).contains(byte) {
            index += 9
        } else {
            index += 1
        }
    }
    return index
}

/// The ownership a mangled type name ends with.
func ownership(ofMangledType name: UnsafeRawPointer) -> FieldOwnership {
    var last: UInt8 = 0
    var beforeLast: UInt8 = 0
    var index = 0
    while index < 4096 {
        let byte = name.load(fromByteOffset: index, as: UInt8.self)
        if byte == 0 { break }
        // Symbolic references embed 4- or 8-byte operands that may contain any byte.
        if (0x01...0x17).contains(byte) {
            beforeLast = last
            last = 0x3F
            index += 5
            continue
        }
        if (0x18...0x1F).contains(byte) {
            beforeLast = last
            last = 0x3F
            index += 9
            continue
        }
        beforeLast = last
        last = byte
        index += 1
    }
    guard beforeLast == UInt8(ascii: "X") else { return .strong }
    switch last {
    case UInt8(ascii: "w"): return .weak
    case UInt8(ascii: "o"): return .unowned
    case UInt8(ascii: "u"): return .unownedUnsafe
    default: return .strong
    }
}

func relativeTarget(_ pointer: UnsafeRawPointer) -> UnsafeRawPointer? {
    let offset = pointer.loadUnaligned(as: Int32.self)
    return offset == 0 ? nil : pointer + Int(offset)
}

/// The kind of a type's metadata, as far as discovery cares.
enum MetadataKind: Equatable {
    case classInstance, structure, enumeration, optional, tuple, function, existential, other

    init(of type: Any.Type) {
        let word = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
        switch word {
        case 0x200: self = .structure
        case 0x201: self = .enumeration
        case 0x202: self = .optional
        case 0x301: self = .tuple
        case 0x302: self = .function
        case 0x303: self = .existential
        case 0, 0x800...: self = .classInstance
        default: self = .other
        }
    }

    /// The `Wrapped` of an `Optional<Wrapped>` metadata (its first generic argument).
    static func optionalWrapped(_ type: Any.Type) -> Any.Type? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard let argument = metadata.load(fromByteOffset: 16, as: UnsafeRawPointer?.self) else { return nil }
        return unsafeBitCast(argument, to: Any.Type.self)
    }
}
