import CLeakGraphSupport
@_spi(Reflection) import Swift
import Synchronization

/// Where the references of one type's values are, read from its metadata: the exact layout
/// discovery walks. Nothing here reads a value; ``HeapWalker`` does, step by step.
///
/// Structs and tuples are flattened into their container's steps (their offsets added, their
/// field names joined into paths), so a walk never recurses into a value type. What cannot be
/// known from metadata is left out: the plan says so (``complete``) and its references count as
/// held from outside, which can make a verdict "retained", never "leaked".
final class TypePlan: Sendable {
    /// One place that may hold a reference.
    enum Step: Sendable {
        /// A native strong reference word (a class, an optional class, a class-bound
        /// existential's first word); 0 is nil.
        case strong(offset: Int, path: String)
        /// An `unowned` (safe) reference word: compared with live objects, never loaded. (A
        /// dead target's memory stays allocated while unowned references exist, so its address
        /// cannot be reused by a new object.)
        case unowned(offset: Int, path: String)
        /// A thick Swift function: a code word and a context word.
        case closure(offset: Int, path: String)
        /// A reference to a heap box (a captured `var`): its metadata gives the boxed type.
        case box(offset: Int, path: String)
        /// An enum with payloads (an `Optional` of a value type included).
        case enumeration(offset: Int, path: String, info: EnumInfo)
        /// An opaque existential container (`Any`, `any P`): three words of buffer, then the
        /// dynamic type.
        case existential(offset: Int, path: String)
        /// `Array` / `ContiguousArray`: a storage word.
        case array(offset: Int, path: String, element: TypePlanBox)
        /// `Dictionary`: a storage word.
        case dictionary(offset: Int, path: String, key: TypePlanBox, value: TypePlanBox)
        /// `Set`: a storage word.
        case set(offset: Int, path: String, element: TypePlanBox)
        /// `ArraySlice`: the word of the array storage it shares (every element of that storage
        /// is alive, inside the slice's range or not).
        case slice(offset: Int, path: String, element: TypePlanBox)
        /// An `Unmanaged` word: compared with live objects, never loaded; owning only when the
        /// target's retain count says so (``EdgeKind/unmanaged``).
        case unmanaged(offset: Int, path: String)
        /// `count` words whose type cannot be read (a `Mutex`'s contents, a constrained
        /// existential): each is compared with live objects, never loaded, and counts as owning
        /// only when the target's retain count says so. `why` is said as unread unless every word
        /// is accounted for.
        case words(offset: Int, count: Int, path: String, why: String)
        /// A continuation's word: the suspended task it resumes (nil once resumed). Holding it is
        /// what lets that task finish, so it counts as holding the task (see
        /// ``HeapWalker/task(_:from:label:)``).
        case continuation(offset: Int, path: String)
        /// An `any Error` word: a reference to the runtime's error box, which holds the value's
        /// type and then the value (see ``HeapWalker/errorBox(_:from:path:)``); 0 is nil.
        case errorBox(offset: Int, path: String)
    }

    /// The tail-allocated elements of a `ManagedBuffer` (see ``tail``).
    struct Tail: Sendable {
        /// The element type, with its plan.
        let element: TypePlanBox
        /// Where the first element is, from the object's start.
        let offset: Int
        let stride: Int
        /// Which slots hold elements, when the header says so by a convention this reader knows.
        let liveSlots: LiveSlots?
    }

    let steps: [Step]
    /// Why part of the type could not be laid out (its references are then invisible), in words
    /// for the user; nil when every part was.
    let unreadReason: String?
    /// False when part of the type could not be laid out.
    var complete: Bool { unreadReason == nil }
    /// Whether the whole plan is one strong reference at offset 0 (arrays of class references:
    /// the hot loop of a walk).
    let isSingleReference: Bool
    /// For a `ManagedBuffer` (or a subclass) whose elements may hold references: where they
    /// are. Which slots hold values only the buffer's owner knows, so the walk compares their
    /// words with live objects and never loads one.
    let tail: Tail?
    /// How many bytes from a value's start its steps read: at least the end of the last word a
    /// step loads. A class's declared instance size can be smaller (a
    /// `CheckedContinuationCanary`'s continuation is tail-allocated), so a copy made to be walked
    /// covers this many.
    let bytesRead: Int

    convenience init(steps: [Step], complete: Bool) {
        self.init(steps: steps, unreadReason: complete ? nil : "a value whose layout cannot be read")
    }

    init(steps: [Step], unreadReason: String?, tail: Tail? = nil) {
        self.steps = steps
        self.unreadReason = unreadReason
        self.tail = tail
        bytesRead = steps.reduce(0) { max($0, Self.end(of: $1)) }
        if steps.count == 1, case .strong(offset: 0, path: "") = steps[0] {
            isSingleReference = true
        } else {
            isSingleReference = false
        }
    }

    static let empty = TypePlan(steps: [], complete: true)

    /// Where the last byte `step` loads ends, from the value's start (an enum's payload is
    /// loaded by its own plan: its first word is counted here).
    private static func end(of step: Step) -> Int {
        switch step {
        case .strong(let offset, _), .unowned(let offset, _), .box(let offset, _), .array(let offset, _, _),
            .dictionary(let offset, _, _, _), .set(let offset, _, _), .unmanaged(let offset, _),
            .continuation(let offset, _), .enumeration(let offset, _, _), .errorBox(let offset, _):
            offset + 8
        case .closure(let offset, _), .slice(let offset, _, _): offset + 16
        case .existential(let offset, _): offset + 32
        case .words(let offset, let count, _, _): offset + 8 * count
        }
    }

    private static let cache = Locked<[UInt: TypePlan]>([:], heldAcrossFork: true)

    /// The plan for values of `type` (cached per type).
    static func of(_ type: Any.Type) -> TypePlan {
        let key = UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var builder = Builder()
        builder.add(type, offset: 0, path: "", ownership: .strong, depth: 0)
        let plan = TypePlan(steps: builder.steps, unreadReason: builder.unreadReason)
        cache.withLock { $0[key] = plan }
        return plan
    }

    /// A stored property laid out by hand (see ``ofFields(_:)``).
    struct Field {
        let offset: Int
        let type: Any.Type
        let name: String
        let ownership: FieldOwnership
    }

    /// The plan for a value whose stored properties are `fields` (a struct whose metadata the
    /// runtime cannot make, laid out from its field descriptor; not cached: its caller is).
    static func ofFields(_ fields: [Field]) -> TypePlan {
        var builder = Builder()
        for field in fields {
            builder.add(field.type, offset: field.offset, path: field.name, ownership: field.ownership, depth: 1)
        }
        return TypePlan(steps: builder.steps, unreadReason: builder.unreadReason)
    }

    /// The plan for the stored properties of instances of `type` (a class), superclasses
    /// included, LeakGraph's own bookkeeping left out.
    static func ofInstances(_ type: AnyClass) -> TypePlan {
        let key = UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self)) | 1
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var builder = Builder()
        builder.addFields(of: type, offset: 0, path: "", depth: 0)
        if qualifiedTypeName(type) == "Swift.CheckedContinuationCanary" {
            // Its continuation is tail-allocated right after the object's header, with no field
            // metadata (then the function's name).
            builder.steps.append(.continuation(offset: 16, path: "continuation"))
        }
        var tail: Tail?
        if let (header, element) = managedBufferArguments(of: type) {
            // Tail-allocated elements: which slots hold values only the code that owns the buffer
            // knows (a count in its header, a ring's start and end), so their words are compared
            // with live objects, never loaded (see `HeapWalker.tail`).
            let elementPlan = TypePlan.of(element)
            if !elementPlan.steps.isEmpty || !elementPlan.complete {
                let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
                let size = Int(metadata.load(fromByteOffset: ClassMetadataLayout.instanceSizeOffset, as: UInt32.self))
                let elementMetadata = unsafeBitCast(element, to: UnsafeRawPointer.self)
                let alignment = Int(lg_type_flags(elementMetadata) & 0xFF) + 1
                // The header is ManagedBuffer's one stored property, after the object's header.
                let headerMetadata = unsafeBitCast(header, to: UnsafeRawPointer.self)
                let headerAlignment = Int(lg_type_flags(headerMetadata) & 0xFF) + 1
                let headerOffset = (16 + headerAlignment - 1) / headerAlignment * headerAlignment
                tail = Tail(
                    element: TypePlanBox(element), offset: (size + alignment - 1) / alignment * alignment,
                    stride: max(1, lg_type_stride(elementMetadata)),
                    liveSlots: LiveSlots.of(header: header, at: headerOffset))
            }
        }
        let plan = TypePlan(steps: builder.steps, unreadReason: builder.unreadReason, tail: tail)
        cache.withLock { $0[key] = plan }
        return plan
    }

    /// The nominal type descriptor of `ManagedBuffer` (an address: `Sendable`).
    private static let managedBufferDescriptor = UInt(
        bitPattern: classDescriptor(of: unsafeBitCast(ManagedBuffer<Int, Int>.self, to: UnsafeRawPointer.self)))

    private static func classDescriptor(of metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        metadata.load(fromByteOffset: ClassMetadataLayout.descriptionOffset, as: UnsafeRawPointer?.self)
    }

    /// The `Header` and `Element` of the `ManagedBuffer<Header, Element>` that `type` is or
    /// inherits from.
    private static func managedBufferArguments(of type: AnyClass) -> (Any.Type, Any.Type)? {
        var current: AnyClass? = type
        while let cls = current {
            let metadata = unsafeBitCast(cls, to: UnsafeRawPointer.self)
            if let descriptor = classDescriptor(of: metadata), UInt(bitPattern: descriptor) == managedBufferDescriptor {
                // ManagedBuffer's superclass is none: its generic arguments follow its members.
                let positive = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
                let immediate = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
                guard positive > immediate else { return nil }
                let header = metadata.load(fromByteOffset: (positive - immediate) * 8, as: UnsafeRawPointer.self)
                let element = metadata.load(fromByteOffset: (positive - immediate + 1) * 8, as: UnsafeRawPointer.self)
                return (unsafeBitCast(header, to: Any.Type.self), unsafeBitCast(element, to: Any.Type.self))
            }
            current = _getSuperclass(cls)
        }
        return nil
    }

    private struct Builder {
        var steps: [Step] = []
        /// The first part left out, and why.
        var unreadReason: String?

        /// (A plain `String`: the reasons are built on failure paths only, and an autoclosure
        /// here crashed the 6.3.1 optimiser's copy propagation in `addFields`.)
        mutating func leaveOut(_ reason: String) {
            if unreadReason == nil { unreadReason = reason }
        }

        /// Value types nest at most this deep before the rest is left out (types nest, data
        /// does not: this bounds the plan, not the walk).
        static let maximumDepth = 24

        mutating func add(_ type: Any.Type, offset: Int, path: String, ownership: FieldOwnership, depth: Int) {
            switch ownership {
            case .weak, .unownedUnsafe:
                // Weak storage is not a plain pointer; unowned(unsafe) may point at a dead object
                // whose address a new object reuses: neither is ever read.
                return
            case .unowned:
                steps.append(.unowned(offset: offset, path: path))
                return
            case .strong:
                break
            }
            guard depth < Self.maximumDepth else {
                leaveOut("\(path): value types nested more than \(Self.maximumDepth) deep")
                return
            }
            switch MetadataKind(of: type) {
            case .classInstance:
                steps.append(.strong(offset: offset, path: path))
            case .optional:
                guard let wrapped = MetadataKind.optionalWrapped(type) else {
                    leaveOut("\(path): an optional whose wrapped type cannot be read")
                    return
                }
                addOptional(type, wrapped: wrapped, offset: offset, path: path, depth: depth)
            case .structure:
                addStructure(type, offset: offset, path: path, depth: depth)
            case .tuple:
                addFields(of: type, offset: offset, path: path, depth: depth)
            case .enumeration:
                if let info = EnumInfo.of(type), info.hasPayloads {
                    steps.append(.enumeration(offset: offset, path: path, info: info))
                } else if EnumInfo.of(type) == nil {
                    leaveOut("\(path): an enum (\(displayTypeName(type))) whose payload types cannot be resolved")
                }
            case .function:
                if FunctionConvention(of: type) == .swift { steps.append(.closure(offset: offset, path: path)) }
            case .existential:
                switch ExistentialShape(of: type) {
                case .classBound: steps.append(.strong(offset: offset, path: path))
                case .opaque: steps.append(.existential(offset: offset, path: path))
                case .error: addErrorBox(offset: offset, path: path)
                case .metatype, .unknown:
                    leaveOut("\(path): an existential (\(displayTypeName(type))) whose layout is not read")
                }
            case .other:
                if let (count, element) = fixedArray(type) {
                    addFixedArray(count: count, element: element, offset: offset, path: path, depth: depth)
                    return
                }
                if let shape = ExtendedExistentialShape(of: type) {
                    addExtendedExistential(shape, of: type, in: type, offset: offset, path: path)
                    return
                }
                switch BuiltinShape(of: type) {
                case .nativeReference: steps.append(.strong(offset: offset, path: path))
                case .trivial: break
                case .unknown:
                    addWords(
                        of: type, offset: offset, path: path,
                        why: "\(path): a builtin value (\(displayTypeName(type))) that may hold a reference, not read")
                }
            }
        }

        /// An `any Error` value: one reference to the runtime's error box. Its layout is read
        /// without Objective-C interop, where the box is a plain Swift heap object (with it, the
        /// box may be an `NSError`).
        private mutating func addErrorBox(offset: Int, path: String) {
            #if !_runtime(_ObjC)
                steps.append(.errorBox(offset: offset, path: path))
            #else
                leaveOut("\(path): an `any Error` value (its box may be an NSError, not read)")
            #endif
        }

        /// The words of a value of `type` (its size from its value witnesses), compared with live
        /// objects by the walk; said unread (`why`) unless each is accounted for.
        private mutating func addWords(of type: Any.Type, offset: Int, path: String, why: String) {
            let size = lg_type_size(unsafeBitCast(type, to: UnsafeRawPointer.self))
            addWords(offset: offset, size: size, path: path, why: why)
        }

        /// The most words one `.words` step compares.
        static let maximumWords = 512

        private mutating func addWords(offset: Int, size: Int, path: String, why: String) {
            // Only whole, aligned words can hold a reference.
            let first = (offset + 7) / 8 * 8
            let count = max(0, (offset + size - first) / 8)
            guard count > 0 else { return }
            guard count <= Self.maximumWords else {
                leaveOut(why)
                return
            }
            steps.append(.words(offset: first, count: count, path: path, why: why))
        }

        /// `InlineArray`'s storage (`Builtin.FixedArray<count, Element>`, metadata kind 0x308):
        /// its count and element type.
        private func fixedArray(_ type: Any.Type) -> (Int, Any.Type)? {
            let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
            guard metadata.load(as: UInt.self) == 0x308 else { return nil }
            let count = metadata.load(fromByteOffset: 8, as: Int.self)
            let element = metadata.load(fromByteOffset: 16, as: UnsafeRawPointer.self)
            return (max(0, count), unsafeBitCast(element, to: Any.Type.self))
        }

        /// The most steps an `InlineArray` adds to a plan (its elements are flattened, one plan
        /// step per reference each): past this, the rest is said unread.
        static let maximumFixedArraySteps = 4096

        /// Every element of an `InlineArray`, at its stride, labelled by index.
        private mutating func addFixedArray(count: Int, element: Any.Type, offset: Int, path: String, depth: Int) {
            let elementPlan = TypePlan.of(element)
            guard !elementPlan.steps.isEmpty || !elementPlan.complete else { return }
            guard count * max(1, elementPlan.steps.count) <= Self.maximumFixedArraySteps else {
                leaveOut("\(path): an InlineArray of \(count) \(displayTypeName(element)) (too many to lay out)")
                return
            }
            let stride = lg_type_stride(unsafeBitCast(element, to: UnsafeRawPointer.self))
            for index in 0..<count {
                add(
                    element, offset: offset + index * stride, path: "\(path)[\(index)]", ownership: .strong,
                    depth: depth + 1)
            }
        }

        private mutating func addOptional(
            _ type: Any.Type, wrapped: Any.Type, offset: Int, path: String, depth: Int
        ) {
            switch MetadataKind(of: wrapped) {
            case .classInstance:
                // nil is the null word.
                steps.append(.strong(offset: offset, path: path))
            case .function where FunctionConvention(of: wrapped) == .swift:
                // nil is a null code word.
                steps.append(.closure(offset: offset, path: path))
            case .function:
                break
            case .existential where ExistentialShape(of: wrapped) == .classBound:
                steps.append(.strong(offset: offset, path: path))
            case .existential where ExistentialShape(of: wrapped) == .error:
                // nil is the null word.
                addErrorBox(offset: offset, path: path)
            case .other where BuiltinShape(of: wrapped) == .nativeReference:
                // nil is the null word.
                steps.append(.strong(offset: offset, path: path))
            case .other where ExtendedExistentialShape(of: wrapped) != nil:
                addExtendedExistential(
                    ExtendedExistentialShape(of: wrapped)!, of: wrapped, in: type, offset: offset, path: path)
            case .other where BuiltinShape(of: wrapped) == .unknown:
                addWords(
                    of: type, offset: offset, path: path,
                    why: "\(path): a builtin value (\(displayTypeName(wrapped))) that may hold a reference, not read")
            case .other:
                break
            default:
                // An optional of a value type that holds no reference needs no walk at all.
                if TypePlan.of(wrapped).steps.isEmpty && TypePlan.of(wrapped).complete { return }
                addEnumeration(type, offset: offset, path: path)
            }
        }

        /// A constrained existential (`any P<T>`, `existential`) with its shape, stored as `type`:
        /// itself, or an optional of it.
        private mutating func addExtendedExistential(
            _ shape: ExtendedExistentialShape, of existential: Any.Type, in type: Any.Type, offset: Int, path: String
        ) {
            let isOptional = type != existential
            switch shape {
            case .opaque where isOptional:
                // nil is told by the container's extra inhabitants: read through the enum.
                addEnumeration(type, offset: offset, path: path)
            case .opaque: steps.append(.existential(offset: offset, path: path))
            case .classBound: steps.append(.strong(offset: offset, path: path))  // an optional's nil: the null word
            case .metatype: break
            case .explicitLayout:
                // A layout of its own: its words are compared with live objects.
                addWords(
                    of: type, offset: offset, path: path,
                    why:
                        "\(path): a constrained existential with a layout of its own (\(displayTypeName(existential))), not read"
                )
            }
        }

        private mutating func addEnumeration(_ type: Any.Type, offset: Int, path: String) {
            if let info = EnumInfo.of(type) {
                steps.append(.enumeration(offset: offset, path: path, info: info))
            } else {
                leaveOut("\(path): an optional (\(displayTypeName(type))) whose payload cannot be resolved")
            }
        }

        private mutating func addStructure(_ type: Any.Type, offset: Int, path: String, depth: Int) {
            switch KnownStructure(of: type) {
            case .text:
                return
            case .array(let element):
                steps.append(.array(offset: offset, path: path, element: TypePlanBox(element)))
            case .dictionary(let key, let value):
                steps.append(
                    .dictionary(offset: offset, path: path, key: TypePlanBox(key), value: TypePlanBox(value)))
            case .set(let element):
                steps.append(.set(offset: offset, path: path, element: TypePlanBox(element)))
            case .slice(let element):
                steps.append(.slice(offset: offset, path: path, element: TypePlanBox(element)))
            case .unmanaged:
                steps.append(.unmanaged(offset: offset, path: path))
            case .continuation:
                steps.append(.continuation(offset: offset, path: path))
            case .unsupportedCollection:
                leaveOut("\(path): a collection (\(displayTypeName(type))) whose storage layout is not read")
            case .none:
                addFields(of: type, offset: offset, path: path, depth: depth)
            }
        }

        /// The stored fields of a struct, tuple or class, flattened.
        mutating func addFields(of type: Any.Type, offset: Int, path: String, depth: Int) {
            let kind = MetadataKind(of: type)
            var names: [UnsafeRawPointer?]?
            var options = _EachFieldOptions()
            switch kind {
            case .classInstance:
                options = _EachFieldOptions(rawValue: 1)  // .classType; the static is not concurrency-safe
                names = classFieldTypeNames(type)
            case .structure:
                names = descriptorFieldTypeNames(
                    metadata: unsafeBitCast(type, to: UnsafeRawPointer.self), isClass: false)
            default:
                break
            }
            var raw: [(name: String, offset: Int, type: Any.Type)] = []
            let walked = _forEachField(of: type, options: options) { name, fieldOffset, fieldType, _ in
                raw.append((String(cString: name), fieldOffset, fieldType))
                return true
            }
            guard walked else {
                leaveOut(
                    "\(path.isEmpty ? "fields" : path): the fields of \(displayTypeName(type)) (no field metadata)")
                return
            }
            if kind != .tuple && names?.count != raw.count {
                // The descriptor does not match the layout: strength cannot be known, so nothing
                // found here may count as strong.
                leaveOut(
                    "\(path.isEmpty ? "fields" : path): the fields of \(displayTypeName(type)) (its field descriptor does not match its layout)"
                )
                return
            }
            // Where each field's room ends: the next field's offset, or the end of the value. A field
            // reported as `()` with room of its own is one reflection could not hand out: said
            // unread from two words up (a `Mutex` guarding a value; an `Atomic` of a word or less
            // holds no reference, and a zero-size counter such as LeakGraphRx's `RxResource` is
            // no value at all).
            let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
            let instanceSizeOffset = ClassMetadataLayout.instanceSizeOffset
            let end =
                kind == .classInstance
                ? Int(metadata.load(fromByteOffset: instanceSizeOffset, as: UInt32.self)) : lg_type_size(metadata)
            // Fields are laid out in declaration order: the next one starts where this one's room
            // ends (a zero-size field shares its offset with the next).
            func room(of index: Int) -> Int {
                let start = raw[index].offset
                // Reflection gives a zero-size field offset 0, whatever precedes it.
                if raw[..<index].contains(where: { $0.offset > start }) { return 0 }
                if index + 1 < raw.count { return raw[index + 1].offset - start }
                if kind == .classInstance {
                    // A class's instance size is padded to its alignment: a last field of size
                    // zero at an unaligned offset (LeakGraphRx's `RxResource` counter) has only
                    // padding after it.
                    let alignment =
                        Int(metadata.load(fromByteOffset: ClassMetadataLayout.alignMaskOffset, as: UInt16.self)) + 1
                    if start % alignment != 0 && end == (start + alignment - 1) / alignment * alignment { return 0 }
                }
                return end - start
            }
            for (index, field) in raw.enumerated() {
                if kind == .classInstance && field.name == "leakGraphSlot" && field.offset == 16 { continue }
                let name = kind == .tuple ? String(field.name.drop { $0 == "." }) : field.name
                let fieldPath = path.isEmpty ? name : "\(path).\(name)"
                let typeName = kind == .tuple ? nil : names![index]
                if kind != .tuple && field.type == Void.self && !mangledNameIsEmptyTuple(typeName)
                    && room(of: index) >= 16
                {
                    addWords(
                        offset: offset + field.offset, size: room(of: index), path: fieldPath,
                        why:
                            "\(fieldPath): a noncopyable value (a Mutex, an Atomic, …) whose contents reflection does not describe"
                    )
                    continue
                }
                let ownership = typeName.map(ownership(ofMangledType:)) ?? .strong
                add(field.type, offset: offset + field.offset, path: fieldPath, ownership: ownership, depth: depth + 1)
            }
        }

        private func classFieldTypeNames(_ type: Any.Type) -> [UnsafeRawPointer?]? {
            var chain: [AnyClass] = []
            var current: AnyClass? = type as? AnyClass
            while let cls = current {
                chain.append(cls)
                current = _getSuperclass(cls)
            }
            var result: [UnsafeRawPointer?] = []
            for cls in chain.reversed() {
                guard
                    let own = descriptorFieldTypeNames(
                        metadata: unsafeBitCast(cls, to: UnsafeRawPointer.self), isClass: true)
                else { return nil }
                result += own
            }
            return result
        }
    }
}

/// A plan computed on first use (element types of collections, which may be recursive:
/// `indirect enum Tree { case node([Tree]) }`).
final class TypePlanBox: Sendable {
    let type: MetatypeBox

    init(_ type: Any.Type) {
        self.type = MetatypeBox(type: type)
    }

    var plan: TypePlan { TypePlan.of(type.type) }
    var stride: Int { lg_type_stride(unsafeBitCast(type.type, to: UnsafeRawPointer.self)) }
}

/// An `Any.Type` that can be stored in `Sendable` values.
struct MetatypeBox: Sendable {
    // Unchecked: a metatype is a pointer to immutable runtime metadata, valid for the process's
    // lifetime.
    private let box: UncheckedSendable<Any.Type>
    var type: Any.Type { box.value }
    init(type: Any.Type) { box = UncheckedSendable(type) }
}
