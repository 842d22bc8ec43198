import CLeakGraphSupport
import Synchronization

/// The layout of a closure context's captures, read from the capture descriptor the compiler
/// emits with the context's metadata: where each capture is and how to walk it.
///
/// Captures are laid out one after another at their alignment, after the header and the generic
/// bindings. Each capture's type comes from its mangled name; when one cannot be resolved
/// without a generic context, the captures from there on cannot be placed and are left out
/// (``complete`` is false): their references count as held from outside. No word of a context is
/// ever taken for a reference unless its type says it is one.
final class CaptureLayout: Sendable {
    struct Capture: Sendable {
        let offset: Int
        let plan: TypePlan
    }

    let captures: [Capture]
    let complete: Bool
    /// The bytes from the context's start to the end of its last placed capture: what a copy of
    /// the context must hold to walk it.
    let byteCount: Int

    init(captures: [Capture], complete: Bool, byteCount: Int = 16) {
        self.captures = captures
        self.complete = complete
        self.byteCount = byteCount
    }

    private static let cache = Locked<[UInt: CaptureLayout]>([:])

    /// The layout for a closure context whose (heap local variable) metadata is `metadata`.
    static func of(metadata: UnsafeRawPointer, map: MemoryMap) -> CaptureLayout {
        let key = UInt(bitPattern: metadata)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let layout = build(metadata, map: map)
        cache.withLock { $0[key] = layout }
        return layout
    }

    private static func build(_ metadata: UnsafeRawPointer, map: MemoryMap) -> CaptureLayout {
        let firstCapture = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
        let descriptorWord = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard descriptorWord != 0, map.readableBytes(at: descriptorWord) >= 12,
            let descriptor = UnsafeRawPointer(bitPattern: descriptorWord)
        else { return CaptureLayout(captures: [], complete: false) }
        let typeCount = Int(descriptor.load(as: UInt32.self))
        let bindings = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
        guard typeCount < 1024, bindings < 1024, map.readableBytes(at: descriptorWord) >= UInt(12 + typeCount * 4)
        else { return CaptureLayout(captures: [], complete: false) }
        var offset = firstCapture + bindings * 8
        var captures: [Capture] = []
        for index in 0..<typeCount {
            guard let name = relativeTarget(descriptor + 12 + index * 4),
                map.readableBytes(at: UInt(bitPattern: name)) > 0,
                let (size, alignment, plan) = layout(ofCapture: name)
            else { return CaptureLayout(captures: captures, complete: false, byteCount: offset) }
            offset = (offset + alignment - 1) / alignment * alignment
            if let plan, !plan.steps.isEmpty { captures.append(Capture(offset: offset, plan: plan)) }
            offset += size
        }
        return CaptureLayout(captures: captures, complete: true, byteCount: offset)
    }

    /// Size, alignment and plan of one capture; nil when its type cannot be known.
    private static func layout(ofCapture name: UnsafeRawPointer) -> (Int, Int, TypePlan?)? {
        let length = mangledNameLength(name)
        guard length > 0 else { return nil }
        switch ownership(ofMangledType: name) {
        case .weak, .unownedUnsafe: return (8, 8, nil)
        case .unowned: return (8, 8, TypePlan(steps: [.unowned(offset: 0, path: "")], complete: true))
        case .strong: break
        }
        let bytes = (0..<length).map { name.load(fromByteOffset: $0, as: UInt8.self) }
        // Lowered function types (`SiIegd_`) are not formal types; escaping ones are a (code,
        // context) pair.
        if bytes.last == UInt8(ascii: "_") && bytes.contains(UInt8(ascii: "I")) && bytes.contains(UInt8(ascii: "g")) {
            return (16, 8, TypePlan(steps: [.closure(offset: 0, path: "")], complete: true))
        }
        // A captured `var`: a reference to a box (`{ var T }`, mangled `…_Xx`).
        if bytes.suffix(2).elementsEqual([UInt8(ascii: "X"), UInt8(ascii: "x")]) {
            return (8, 8, TypePlan(steps: [.box(offset: 0, path: "")], complete: true))
        }
        if isClassReference(bytes, name: name) {
            return (8, 8, TypePlan(steps: [.strong(offset: 0, path: "")], complete: true))
        }
        guard !mentionsGenericParameters(bytes),
            let type = _getTypeByMangledNameInContext(
                name.assumingMemoryBound(to: UInt8.self), UInt(length), genericContext: nil, genericArguments: nil)
        else { return nil }
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let size = lg_type_size(metadata)
        let alignment = Int(lg_type_flags(metadata) & 0xFF) + 1
        return (size, alignment, TypePlan.of(type))
    }

    /// A (maybe generic, maybe optional) class: `<symbolic class reference>[generic arguments]G`
    /// or the reference alone, optionally followed by `Sg`. The outermost type of such a name is
    /// the class, so the capture is one strong reference whatever its generic arguments are.
    private static func isClassReference(_ bytes: [UInt8], name: UnsafeRawPointer) -> Bool {
        guard bytes.count >= 5, bytes[0] == 0x01 || bytes[0] == 0x02 else { return false }
        guard let descriptor = symbolicTarget(name, indirect: bytes[0] == 0x02) else { return false }
        let flags = descriptor.load(as: UInt32.self)
        guard flags & 0x1F == 16 else { return false }  // a class
        var rest = bytes.dropFirst(5)
        if rest.suffix(2).elementsEqual([UInt8(ascii: "S"), UInt8(ascii: "g")]) { rest = rest.dropLast(2) }
        if rest.isEmpty { return flags & 0x80 == 0 }  // a non-generic class
        // Bound generic: the arguments, then `G`. Anything else (a tuple, a function) ends otherwise.
        return rest.last == UInt8(ascii: "G") && flags & 0x80 != 0
    }

    /// Whether a mangled name may refer to generic parameters (`x`, `q_`, associated types
    /// `Q…`), which cannot be resolved without the closure's generic context. Conservative: an
    /// identifier containing those letters also answers yes, and the capture is left out.
    private static func mentionsGenericParameters(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if (0x01...0x17).contains(byte) {
                index += 5
                continue
            }
            if (0x18...0x1F).contains(byte) {
                index += 9
                continue
            }
            if byte == UInt8(ascii: "x") || byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") { return true }
            index += 1
        }
        return false
    }

    /// The context descriptor a symbolic reference points at.
    private static func symbolicTarget(_ name: UnsafeRawPointer, indirect: Bool) -> UnsafeRawPointer? {
        guard let target = relativeTarget(name + 1) else { return nil }
        if indirect { return target.load(as: UnsafeRawPointer?.self) }
        return target
    }
}
