import CLeakGraphSupport
import Synchronization

/// A closure context's capture descriptor, as the compiler emits it with the context's (heap
/// local variable) metadata, parsed once per metadata.
///
/// Layout: three counts (capture types, metadata sources, generic bindings), then one relative
/// pointer to each capture's mangled type, then the metadata sources (pairs of relative pointers
/// to mangled strings: a generic parameter, where its metadata is). The context stores the
/// bindings (type metadata and witness tables, one word each) after its header, then the
/// captures, each at its alignment.
///
/// A context whose capture types mention no generic parameter has one layout, built here. A
/// generic one is laid out for the arguments each context stores (``layout(readingArgumentsWith:)``):
/// the parameters are bound in a ``GenericCaptureEnvironment`` and the runtime resolves each
/// capture type in it, as it does for a generic type's fields; layouts are cached per metadata and
/// arguments.
final class CaptureDescriptor: Sendable {
    /// Where the first binding is, from the context's start.
    let bindingsOffset: Int
    let bindingCount: Int
    private let names: [RawPointerBox]
    /// The source of each generic parameter the context binds, in signature order.
    private let sources: [(parameter: GenericParameter, source: MetadataSource)]
    /// The layout of a context that binds nothing (its captures are concrete).
    let fixedLayout: CaptureLayout?
    /// The offsets of the captures that come before the first one whose type is generic (those
    /// do not depend on the arguments): where `R` and `M` sources read.
    private let leadingOffsets: [Int]
    /// Which of those captures are one strong class reference (what an `R` source reads), and
    /// which are one word wide (what an `M` source reads).
    private let referenceCaptures: [Bool]
    private let wordCaptures: [Bool]

    /// Whether the context binds a parameter pack (`each T`): captures whose types expand one are
    /// not read (the runtime resolves packs only in a real generic context).
    private let bindsPacks: Bool
    /// Every generic parameter the metadata sources name: each must have an argument before any
    /// name is resolved (one missing past the others would be read beyond the arguments).
    private let namedParameters: Set<GenericParameter>

    var isGeneric: Bool { fixedLayout == nil }

    /// The bytes of a context that must be readable to find its generic arguments.
    let argumentBytes: Int

    private init(
        bindingsOffset: Int, bindingCount: Int, names: [RawPointerBox],
        sources: [(parameter: GenericParameter, source: MetadataSource)], fixedLayout: CaptureLayout?,
        leadingOffsets: [Int], referenceCaptures: [Bool] = [], wordCaptures: [Bool] = [], bindsPacks: Bool = false,
        namedParameters: Set<GenericParameter> = []
    ) {
        self.bindsPacks = bindsPacks
        self.namedParameters = namedParameters
        self.referenceCaptures = referenceCaptures
        self.wordCaptures = wordCaptures
        self.bindingsOffset = bindingsOffset
        self.bindingCount = bindingCount
        self.names = names
        self.sources = sources
        self.fixedLayout = fixedLayout
        self.leadingOffsets = leadingOffsets
        let captureEnd =
            sources.compactMap { $0.source.captureIndex }.compactMap {
                $0 < leadingOffsets.count ? leadingOffsets[$0] + 8 : nil
            }.max() ?? 0
        self.argumentBytes = max(bindingsOffset + bindingCount * 8, captureEnd, 16)
    }

    private static let cache = Locked<[UInt: CaptureDescriptor]>([:], heldAcrossFork: true)
    private static let genericLayouts = Locked<[GenericLayoutKey: CaptureLayout]>([:], heldAcrossFork: true)

    /// The descriptor of contexts whose metadata is `metadata` (cached).
    static func of(metadata: UnsafeRawPointer, map: MemoryMap) -> CaptureDescriptor {
        let key = UInt(bitPattern: metadata)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let descriptor = parse(metadata, map: map)
        cache.withLock { $0[key] = descriptor }
        return descriptor
    }

    private static func unreadable(_ reason: String) -> CaptureDescriptor {
        CaptureDescriptor(
            bindingsOffset: 16, bindingCount: 0, names: [], sources: [],
            fixedLayout: CaptureLayout(captures: [], unreadReason: reason), leadingOffsets: [])
    }

    private static func parse(_ metadata: UnsafeRawPointer, map: MemoryMap) -> CaptureDescriptor {
        let firstCapture = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
        let descriptorWord = metadata.load(fromByteOffset: 16, as: UInt.self)
        // A capture descriptor is 4-aligned: any other word is not one (and a typed load from
        // it traps in an unoptimised build).
        guard firstCapture >= 16, firstCapture < 4096, descriptorWord != 0, descriptorWord % 4 == 0,
            map.readableBytes(at: descriptorWord) >= 12,
            let descriptor = UnsafeRawPointer(bitPattern: descriptorWord)
        else { return unreadable("a closure context without a capture descriptor") }
        let typeCount = Int(descriptor.load(as: UInt32.self))
        let sourceCount = Int(descriptor.load(fromByteOffset: 4, as: UInt32.self))
        let bindings = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
        guard typeCount < 1024, sourceCount < 1024, bindings < 1024,
            map.readableBytes(at: descriptorWord) >= UInt(12 + typeCount * 4 + sourceCount * 8)
        else { return unreadable("a closure context whose capture descriptor looks malformed") }
        var names: [RawPointerBox] = []
        for index in 0..<typeCount {
            guard let name = relativeTarget(descriptor + 12 + index * 4),
                map.readableBytes(at: UInt(bitPattern: name)) > 0
            else { return unreadable("a closure context whose capture descriptor looks malformed") }
            names.append(RawPointerBox(pointer: name))
        }
        let start = firstCapture + bindings * 8
        if sourceCount == 0 && bindings == 0 {
            let layout = CaptureLayout.build(names: names.map(\.pointer), from: start, environment: nil)
            return CaptureDescriptor(
                bindingsOffset: firstCapture, bindingCount: 0, names: names, sources: [], fixedLayout: layout,
                leadingOffsets: [])
        }
        var sources: [(parameter: GenericParameter, source: MetadataSource)] = []
        var bindsPacks = false
        var namedParameters: Set<GenericParameter> = []
        let records = descriptor + 12 + typeCount * 4
        for index in 0..<sourceCount {
            guard let parameterName = relativeTarget(records + index * 8),
                let sourceName = relativeTarget(records + index * 8 + 4)
            else { continue }
            let parameterBytes = mangledBytes(parameterName)
            if parameterBytes.contains(UInt8(ascii: "Q")) && parameterBytes.last == UInt8(ascii: "P") {
                bindsPacks = true
            }
            let parameter = GenericParameter(mangled: parameterBytes)
            if let parameter { namedParameters.insert(parameter) }
            guard let parameter, let source = MetadataSource(mangled: mangledBytes(sourceName)) else {
                // A dependent member type or a pack bound directly: its parameter is bound
                // elsewhere (or the capture that needs it is left out, and said).
                continue
            }
            sources.append((parameter, source))
        }
        // The captures whose offsets do not depend on the arguments.
        // (Class references, closures and boxes have a size whatever their generic arguments.)
        var leadingOffsets: [Int] = []
        var referenceCaptures: [Bool] = []
        var wordCaptures: [Bool] = []
        var offset = start
        for name in names {
            // A name that mentions generic parameters is never handed to the runtime unbound (a
            // pack expansion there aborts the process): only the shapes whose size needs no
            // resolution are placed.
            let bytes = mangledBytes(name.pointer)
            let shape =
                mentionsGenericParameters(bytes)
                ? CaptureType.fixedShape(name.pointer, bytes: bytes)
                : try? CaptureType.of(name.pointer, environment: nil).get()
            guard let capture = shape else { break }
            offset = (offset + capture.alignment - 1) / capture.alignment * capture.alignment
            leadingOffsets.append(offset)
            referenceCaptures.append(capture.plan?.isSingleReference ?? false)
            wordCaptures.append(capture.size == 8)
            offset += capture.size
        }
        return CaptureDescriptor(
            bindingsOffset: firstCapture, bindingCount: bindings, names: names, sources: sources, fixedLayout: nil,
            leadingOffsets: leadingOffsets, referenceCaptures: referenceCaptures, wordCaptures: wordCaptures,
            bindsPacks: bindsPacks, namedParameters: namedParameters)
    }

    /// The layout of one generic context. `read(address, count)` returns readable bytes of the
    /// context or an object it references (nil: unreadable); `isMetadata(word)` says whether a
    /// word read there may be handed to the runtime as type metadata.
    func layout(
        metadata: UnsafeRawPointer, context: UnsafeRawPointer, read: (UInt, Int) -> UnsafeRawPointer?,
        isMetadata: (UInt) -> Bool
    ) -> CaptureLayout {
        if let fixedLayout { return fixedLayout }
        let start = bindingsOffset + bindingCount * 8
        var arguments: [GenericParameter: UInt] = [:]
        for (parameter, source) in sources where arguments[parameter] == nil {
            if let word = value(of: source, context: context, read: read, isMetadata: isMetadata) {
                arguments[parameter] = word
            }
        }
        let environment = GenericCaptureEnvironment(
            arguments: arguments,
            isUsable: !bindsPacks && namedParameters.allSatisfy { arguments[$0] != nil })
        // Keyed by the metadata the descriptor was read from (a second copy of the context could
        // name another, had it been freed and reused in between).
        let key = GenericLayoutKey(metadata: UInt(bitPattern: metadata), arguments: environment.flatArguments)
        if let cached = Self.genericLayouts.withLock({ $0[key] }) { return cached }
        var layout = CaptureLayout.build(names: names.map(\.pointer), from: start, environment: environment)
        if bindsPacks, layout.unreadReason == CaptureTypeFailure.unboundGenericParameter.text {
            layout = CaptureLayout(
                captures: layout.captures, unreadReason: "a capture of a parameter pack (`repeat each T`), not read",
                byteCount: layout.byteCount)
        }
        Self.genericLayouts.withLock { $0[key] = layout }
        return layout
    }

    /// The metadata word a source names, checked; nil when it cannot be read.
    private func value(
        of source: MetadataSource, context: UnsafeRawPointer, read: (UInt, Int) -> UnsafeRawPointer?,
        isMetadata: (UInt) -> Bool
    ) -> UInt? {
        let word: UInt
        switch source {
        case .binding(let index):
            guard index < bindingCount else { return nil }
            word = context.load(fromByteOffset: bindingsOffset + index * 8, as: UInt.self)
        case .metadataCapture(let index):
            // Only a capture one word wide can be a metadata pointer.
            guard index < wordCaptures.count, wordCaptures[index] else { return nil }
            word = context.load(fromByteOffset: leadingOffsets[index], as: UInt.self)
        case .referenceCapture(let index):
            // A strong reference the (live) context holds: its object's first word is its class.
            // Only a capture that is one class reference is read as one.
            guard index < referenceCaptures.count, referenceCaptures[index] else { return nil }
            let reference = context.load(fromByteOffset: leadingOffsets[index], as: UInt.self)
            guard reference != 0, let object = read(reference, 8) else { return nil }
            word = object.load(as: UInt.self)
        case .genericArgument(let argument, let base):
            guard let baseWord = value(of: base, context: context, read: read, isMetadata: isMetadata),
                let offset = Self.genericArgumentOffset(metadata: baseWord, read: read),
                let arguments = read(baseWord + UInt(offset * 8), (argument + 1) * 8)
            else { return nil }
            word = arguments.load(fromByteOffset: argument * 8, as: UInt.self)
        }
        return isMetadata(word) ? word : nil
    }

    /// Where a nominal type's metadata keeps its generic arguments, in words.
    private static func genericArgumentOffset(
        metadata address: UInt, read: (UInt, Int) -> UnsafeRawPointer?
    ) -> Int? {
        guard let metadata = read(address, 16) else { return nil }
        let kind = metadata.load(as: UInt.self)
        if kind == 0x200 || kind == 0x201 || kind == 0x202 { return 2 }
        guard kind == 0 || kind >= 0x800 else { return nil }
        // A class: the offset depends on its superclasses' sizes, recorded in its descriptor
        // (not for a resilient superclass, whose bounds are only known at run time).
        let descriptionOffset = ClassMetadataLayout.descriptionOffset
        guard let full = read(address, descriptionOffset + 8) else { return nil }
        let descriptorWord = full.load(fromByteOffset: descriptionOffset, as: UInt.self)
        guard let descriptor = read(descriptorWord, 36) else { return nil }
        let flags = descriptor.load(as: UInt32.self)
        guard flags & 0x1F == 16, flags & 0x80 != 0, flags & (1 << 29) == 0 else { return nil }
        let positive = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
        let immediate = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
        return positive > immediate ? positive - immediate : nil
    }
}

/// A generic context's metadata and the arguments it binds: the key of its layout.
private struct GenericLayoutKey: Hashable {
    let metadata: UInt
    let arguments: [UInt]
}

/// Immutable metadata (a mangled name in an image), in a `Sendable` value.
struct RawPointerBox: Sendable {
    // Unchecked: the pointer names read-only data of a loaded image, never written.
    private let box: UncheckedSendable<UnsafeRawPointer>
    var pointer: UnsafeRawPointer { box.value }
    init(pointer: UnsafeRawPointer) { box = UncheckedSendable(pointer) }
}

/// The bytes of a mangled string (symbolic references included).
private func mangledBytes(_ name: UnsafeRawPointer) -> [UInt8] {
    (0..<mangledNameLength(name)).map { name.load(fromByteOffset: $0, as: UInt8.self) }
}
