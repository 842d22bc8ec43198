import CLeakGraphSupport
@_spi(Reflection) import Swift
import Synchronization

/// What a value of a type with no nominal layout (a builtin: `Builtin.NativeObject`,
/// `Builtin.RawPointer`, …) holds, from its value witnesses.
enum BuiltinShape: Equatable {
    /// One native strong reference (`Builtin.NativeObject`: `ManagedBufferPointer`'s storage,
    /// swift-collections' `Deque`): its value witnesses are those every Swift class shares.
    case nativeReference
    /// Plain bits (its value witnesses say POD): nothing to walk.
    case trivial
    /// Anything else (a bridge or unknown object, a type this reader does not know).
    case unknown

    /// The value witness table of every native Swift class (an address: `Sendable`).
    private static let nativeWitnesses = valueWitnesses(
        of: unsafeBitCast(TypePlanBox.self as AnyClass, to: UnsafeRawPointer.self))

    private static func valueWitnesses(of metadata: UnsafeRawPointer) -> UInt {
        metadata.load(fromByteOffset: -8, as: UInt.self)
    }

    init(of type: Any.Type) {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        if Self.valueWitnesses(of: metadata) == Self.nativeWitnesses {
            self = .nativeReference
        } else if lg_type_flags(metadata) & 0x0001_0000 == 0 {
            self = .trivial
        } else {
            self = .unknown
        }
    }
}

/// The calling convention of a function type (its metadata's flags).
enum FunctionConvention: Equatable {
    case swift, block, thin, c, unknown

    init(of type: Any.Type) {
        let flags = unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UInt.self)
        switch (flags >> 16) & 0xFF {
        case 0: self = .swift
        case 1: self = .block
        case 2: self = .thin
        case 3: self = .c
        default: self = .unknown
        }
    }
}

/// How an existential type stores its value (its metadata's flags).
enum ExistentialShape: Equatable {
    /// One reference word, then witness tables (`AnyObject`, `any P & AnyObject`).
    case classBound
    /// Three words of inline buffer, the dynamic type, then witness tables (`Any`, `any P`).
    case opaque
    /// `any Error`: one reference to a runtime box.
    case error
    case metatype
    case unknown

    init(of type: Any.Type) {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        if kind == 0x306 {
            self = .metatype
            return
        }
        guard kind == 0x303 else {
            self = .unknown
            return
        }
        let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
        let special = (flags >> 24) & 0x3F
        if special == 1 {
            self = .error
        } else if flags & 0x8000_0000 == 0 {
            self = .classBound
        } else {
            self = .opaque
        }
    }
}

/// How a constrained existential (`any P<T>`: extended existential metadata, kind 0x307) stores
/// its value, from its shape's special kind.
enum ExtendedExistentialShape: Equatable {
    /// The general case: an opaque existential's container (three words of buffer, the dynamic
    /// type, then witness tables).
    case opaque
    /// One reference word (`any P<T>` where `P: AnyObject`).
    case classBound
    /// A metatype: no reference.
    case metatype
    /// A layout of its own, described by the shape's value witnesses: not read.
    case explicitLayout

    /// Nil when `type` is not extended existential metadata.
    init?(of type: Any.Type) {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x307 else { return nil }
        // The metadata's second word is its shape, whose first 32 bits are flags; their low
        // byte is the special kind.
        let shape = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
        switch shape.load(as: UInt32.self) & 0xFF {
        case 0: self = .opaque
        case 1: self = .classBound
        case 2: self = .metatype
        default: self = .explicitLayout
        }
    }
}

/// Standard library structures discovery reads by their storage layout, not their fields.
enum KnownStructure {
    case text
    case array(Any.Type)
    case dictionary(Any.Type, Any.Type)
    case set(Any.Type)
    /// `ArraySlice`: its first word is the array storage it shares.
    case slice(Any.Type)
    /// `Unmanaged`: one word, owning or not.
    case unmanaged
    /// `UnsafeContinuation`: the task it resumes (a suspended task, or nil).
    case continuation
    /// A collection whose storage layout is not read (its references count as held from outside).
    case unsupportedCollection

    /// Nominal type descriptors, as addresses (immutable metadata; `UInt` so that they are
    /// `Sendable`).
    private static let descriptors:
        (
            array: UInt, contiguous: UInt, dictionary: UInt, set: UInt, slice: UInt, unmanaged: UInt,
            continuation: UInt
        ) = (
            address(of: [Int].self), address(of: ContiguousArray<Int>.self), address(of: [Int: Int].self),
            address(of: Set<Int>.self), address(of: ArraySlice<Int>.self), address(of: Unmanaged<AnyObject>.self),
            address(of: UnsafeContinuation<Int, Never>.self)
        )

    private static func address(of type: Any.Type) -> UInt { UInt(bitPattern: descriptor(of: type)) }

    private static func descriptor(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UnsafeRawPointer.self)
    }

    private static func argument(_ type: Any.Type, _ index: Int) -> Any.Type {
        let word = unsafeBitCast(type, to: UnsafeRawPointer.self).load(
            fromByteOffset: 16 + 8 * index, as: UnsafeRawPointer.self)
        return unsafeBitCast(word, to: Any.Type.self)
    }

    init?(of type: Any.Type) {
        if type == String.self || type == Substring.self || type == Character.self {
            self = .text
            return
        }
        let descriptor = Self.address(of: type)
        let known = Self.descriptors
        if descriptor == known.array || descriptor == known.contiguous {
            self = CollectionLayout.isValid ? .array(Self.argument(type, 0)) : .unsupportedCollection
        } else if descriptor == known.dictionary {
            self =
                CollectionLayout.isValid
                ? .dictionary(Self.argument(type, 0), Self.argument(type, 1)) : .unsupportedCollection
        } else if descriptor == known.set {
            self = CollectionLayout.isValid ? .set(Self.argument(type, 0)) : .unsupportedCollection
        } else if descriptor == known.slice {
            self = CollectionLayout.isValid ? .slice(Self.argument(type, 0)) : .unsupportedCollection
        } else if descriptor == known.unmanaged {
            self = .unmanaged
        } else if descriptor == known.continuation {
            self = .continuation
        } else {
            return nil
        }
    }
}
