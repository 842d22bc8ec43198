@_spi(Reflection) import Swift
import Synchronization

/// How a stored property refers to what it holds, read from the type's field descriptor.
///
/// `Mirror` cannot tell a `weak var` from an `Optional` nor `unowned` from strong, and loading a
/// dead `unowned` reference through it traps; the field descriptor's mangled type says which
/// (`Xw` weak, `Xo` unowned, `Xu` unowned(unsafe)).
enum FieldOwnership: Sendable {
    case strong, weak, unowned, unownedUnsafe
}

/// What discovery does with one stored field.
enum FieldAction: Sendable {
    /// A class reference or an optional class reference: one pointer-sized word.
    case reference
    /// A weak field: never read (its storage is not a plain pointer).
    case skipWeak
    /// An unowned field: one word, compared against live addresses but never dereferenced.
    case unownedReference
    /// A closure: code and context words.
    case closure
    /// A struct or tuple: walked field by field in place.
    case inline(FieldLayout)
    /// Anything else that may hold references (enums, existentials, collections): read as a
    /// value and walked with `Mirror`.
    case value(MetatypeBox)
}

struct MetatypeBox: @unchecked Sendable {
    let type: Any.Type
}

/// One field of a type's layout that may lead to a reference.
struct FieldPlan: Sendable {
    let name: String
    let offset: Int
    let action: FieldAction
}

/// The reference-bearing fields of a type; cached per type.
final class FieldLayout: Sendable {
    let fields: [FieldPlan]
    /// False when the descriptor could not be matched with the layout: found references are
    /// then marked `.unknown`.
    let ownershipKnown: Bool

    init(fields: [FieldPlan], ownershipKnown: Bool) {
        self.fields = fields
        self.ownershipKnown = ownershipKnown
    }

    private static let cache = Locked<[ObjectIdentifier: FieldLayout]>([:])

    /// The layout of a class (all stored properties of it and its superclasses below
    /// `TrackedObject`) or of a struct or tuple.
    static func of(_ type: Any.Type) -> FieldLayout {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let layout = build(type, depth: 0)
        cache.withLock { $0[key] = layout }
        return layout
    }

    private static func build(_ type: Any.Type, depth: Int) -> FieldLayout {
        let kind = MetadataKind(of: type)
        var ownerships: [FieldOwnership] = []
        var options = _EachFieldOptions()
        switch kind {
        case .classInstance:
            options = _EachFieldOptions(rawValue: 1)  // .classType; the static is not concurrency-safe
            var chain: [AnyClass] = []
            var current: AnyClass? = type as? AnyClass
            while let cls = current {
                chain.append(cls)
                current = _getSuperclass(cls)
            }
            for cls in chain.reversed() {
                guard
                    let own = descriptorOwnerships(
                        metadata: unsafeBitCast(cls, to: UnsafeRawPointer.self), isClass: true)
                else { ownerships = []; break }
                ownerships += own
            }
        case .structure:
            ownerships =
                descriptorOwnerships(metadata: unsafeBitCast(type, to: UnsafeRawPointer.self), isClass: false) ?? []
        case .tuple:
            break
        default:
            return FieldLayout(fields: [], ownershipKnown: true)
        }
        var raw: [(name: String, offset: Int, type: Any.Type)] = []
        _ = _forEachField(of: type, options: options) { name, offset, fieldType, _ in
            raw.append((String(cString: name), offset, fieldType))
            return true
        }
        let ownershipKnown = kind == .tuple || ownerships.count == raw.count
        var plans: [FieldPlan] = []
        for (index, field) in raw.enumerated() {
            if kind == .classInstance && field.name == "leakGraphSlot" && field.offset == 16 { continue }
            let ownership: FieldOwnership = ownershipKnown && kind != .tuple ? ownerships[index] : .strong
            let name = kind == .tuple ? String(field.name.drop { $0 == "." }) : field.name
            if let action = action(for: field.type, ownership: ownership, depth: depth) {
                plans.append(FieldPlan(name: name, offset: field.offset, action: action))
            }
        }
        return FieldLayout(fields: plans, ownershipKnown: ownershipKnown)
    }

    private static func action(for type: Any.Type, ownership: FieldOwnership, depth: Int) -> FieldAction? {
        switch ownership {
        case .weak: return .skipWeak
        case .unowned, .unownedUnsafe: return .unownedReference
        case .strong: break
        }
        switch MetadataKind(of: type) {
        case .classInstance: return .reference
        case .optional:
            guard let wrapped = MetadataKind.optionalWrapped(type) else { return .value(MetatypeBox(type: type)) }
            switch MetadataKind(of: wrapped) {
            case .classInstance:
                return .reference
            case .structure, .tuple:
                // An optional value that cannot hold a reference (a label, a number, a string)
                // needs no walk at all: the common case, and Mirror is the slow path.
                if wrapped == String.self || wrapped == Substring.self { return nil }
                if !isCollection(wrapped), depth < 6, build(wrapped, depth: depth + 1).fields.isEmpty {
                    return nil
                }
                return .value(MetatypeBox(type: type))
            case .other:
                return nil
            default:
                return .value(MetatypeBox(type: type))
            }
        case .function: return .closure
        case .structure, .tuple:
            if type == String.self || type == Substring.self || type == Character.self { return nil }
            if isCollection(type) { return .value(MetatypeBox(type: type)) }
            guard depth < 6 else { return .value(MetatypeBox(type: type)) }
            let nested = build(type, depth: depth + 1)
            return nested.fields.isEmpty ? nil : .inline(nested)
        case .enumeration, .existential:
            return .value(MetatypeBox(type: type))
        case .other:
            return nil
        }
    }

    private static func isCollection(_ type: Any.Type) -> Bool {
        type is any Collection.Type
    }

    /// Reads the field descriptor of one nominal type. nil when it has none or looks malformed.
    private static func descriptorOwnerships(metadata: UnsafeRawPointer, isClass: Bool) -> [FieldOwnership]? {
        #if os(Linux)
            let descriptionOffset = isClass ? 40 : 8
        #else
            let descriptionOffset = isClass ? 64 : 8
        #endif
        guard let descriptor = metadata.load(fromByteOffset: descriptionOffset, as: UnsafeRawPointer?.self),
            let fields = relativeTarget(descriptor + 16)
        else { return isClass ? [] : nil }
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12, count < 10_000 else { return nil }
        var result: [FieldOwnership] = []
        for index in 0..<count {
            let record = fields + 16 + index * recordSize
            guard let typeName = relativeTarget(record + 4) else {
                result.append(.strong)
                continue
            }
            result.append(ownership(ofMangledType: typeName))
        }
        return result
    }
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
