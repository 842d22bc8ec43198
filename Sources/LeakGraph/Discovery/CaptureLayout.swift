import CLeakGraphSupport
import Synchronization

/// The layout of one closure context's captures: where each capture is and how to walk it.
///
/// A context whose captures do not depend on generic parameters has one layout, shared by every
/// context of its metadata. A generic context's layout depends on the generic arguments the
/// context itself stores (see ``CaptureDescriptor``): one layout per metadata and arguments.
/// When a capture's type cannot be known, the captures from there on cannot be placed and are
/// left out: ``complete`` is false and ``unreadReason`` says why; their references count as held
/// from outside. No word of a context is ever taken for a reference unless its type says so.
final class CaptureLayout: Sendable {
    struct Capture: Sendable {
        let offset: Int
        let plan: TypePlan
    }

    let captures: [Capture]
    /// Why captures were left out, in words for the user; nil when every capture was placed.
    let unreadReason: String?
    /// The bytes from the context's start to the end of its last placed capture: what a copy of
    /// the context must hold to walk it.
    let byteCount: Int

    var complete: Bool { unreadReason == nil }

    init(captures: [Capture], unreadReason: String?, byteCount: Int = 16) {
        self.captures = captures
        self.unreadReason = unreadReason
        self.byteCount = byteCount
    }

    /// Lays out the captures named by `names`, starting at `offset`; generic parameters are
    /// resolved in `environment` (nil: the names must not mention any).
    static func build(
        names: [UnsafeRawPointer], from offset: Int, environment: GenericCaptureEnvironment?
    ) -> CaptureLayout {
        var offset = offset
        var captures: [Capture] = []
        for name in names {
            let capture: CaptureType
            switch CaptureType.of(name, environment: environment) {
            case .success(let known): capture = known
            case .failure(let reason):
                return CaptureLayout(captures: captures, unreadReason: reason.text, byteCount: offset)
            }
            offset = (offset + capture.alignment - 1) / capture.alignment * capture.alignment
            if let plan = capture.plan, !plan.steps.isEmpty { captures.append(Capture(offset: offset, plan: plan)) }
            offset += capture.size
        }
        return CaptureLayout(captures: captures, unreadReason: nil, byteCount: offset)
    }
}

/// Why a capture's type could not be laid out.
enum CaptureTypeFailure: Error {
    case unparsable
    case unboundGenericParameter
    case unresolved

    var text: String {
        switch self {
        case .unparsable: return "a capture whose type name could not be read"
        case .unboundGenericParameter:
            return "a capture whose type depends on a generic parameter the context does not store"
        case .unresolved: return "a capture of a type the runtime could not resolve"
        }
    }
}

/// The size, alignment and walk plan of one capture, from its mangled type name.
struct CaptureType {
    let size: Int
    let alignment: Int
    /// nil: nothing to walk (a weak or unowned(unsafe) capture).
    let plan: TypePlan?

    static func of(
        _ name: UnsafeRawPointer, environment: GenericCaptureEnvironment?
    ) -> Result<CaptureType, CaptureTypeFailure> {
        let length = mangledNameLength(name)
        guard length > 0, length < 4096 else { return .failure(.unparsable) }
        let bytes = (0..<length).map { name.load(fromByteOffset: $0, as: UInt8.self) }
        if let shape = fixedShape(name, bytes: bytes) { return .success(shape) }
        let type: Any.Type?
        let generic = mentionsGenericParameters(bytes)
        if let environment, generic {
            guard environment.isComplete else { return .failure(.unboundGenericParameter) }
            type = environment.resolve(name, length: length)
        } else if generic && environment == nil {
            // Never handed to the runtime unbound: a pack expansion there aborts the process.
            // (A context with no metadata sources captures no value of a generic type, so a
            // letter that looked like a generic parameter was part of an identifier: resolved
            // only when nothing in the name can be a pack.)
            guard !bytes.contains(UInt8(ascii: "Q")) else { return .failure(.unboundGenericParameter) }
            type = _getTypeByMangledNameInContext(
                name.assumingMemoryBound(to: UInt8.self), UInt(length), genericContext: nil, genericArguments: nil)
        } else {
            type = _getTypeByMangledNameInContext(
                name.assumingMemoryBound(to: UInt8.self), UInt(length), genericContext: nil, genericArguments: nil)
        }
        guard let type else {
            if let laidOut = fromFieldDescriptor(name, bytes: bytes) { return .success(laidOut) }
            return .failure(generic && environment == nil ? .unboundGenericParameter : .unresolved)
        }
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        return .success(
            CaptureType(
                size: lg_type_size(metadata), alignment: Int(lg_type_flags(metadata) & 0xFF) + 1,
                plan: TypePlan.of(type)))
    }

    /// The layout of a capture whose size needs no resolution: weak and unowned references,
    /// lowered function types, boxes and class references, whatever their generic arguments.
    static func fixedShape(_ name: UnsafeRawPointer, bytes: [UInt8]) -> CaptureType? {
        switch ownership(ofMangledType: name) {
        case .weak, .unownedUnsafe: return CaptureType(size: 8, alignment: 8, plan: nil)
        case .unowned:
            return CaptureType(
                size: 8, alignment: 8, plan: TypePlan(steps: [.unowned(offset: 0, path: "")], complete: true))
        case .strong: break
        }
        // Lowered function types (`SiIegd_`, and their optionals `…_Sg`) are not formal types
        // the runtime resolves; an escaping one is a (code, context) pair whatever its generic
        // parameters, and its optional is nil when the code word is null.
        if isLoweredFunction(bytes) {
            return CaptureType(
                size: 16, alignment: 8, plan: TypePlan(steps: [.closure(offset: 0, path: "")], complete: true))
        }
        // A captured `var`: a reference to a box (`{ var T }`, mangled `…_Xx`), or, in a generic
        // function, a box with its own generic signature (`<A> { var A? } <A>`, mangled
        // `xSgz_x_lXX`; Nimble's `memoizedClosure` keeps its cache so): the box's metadata
        // names the boxed type, whatever the context's arguments.
        if bytes.suffix(2).elementsEqual([UInt8(ascii: "X"), UInt8(ascii: "x")])
            || bytes.suffix(2).elementsEqual([UInt8(ascii: "X"), UInt8(ascii: "X")])
        {
            return CaptureType(
                size: 8, alignment: 8, plan: TypePlan(steps: [.box(offset: 0, path: "")], complete: true))
        }
        if isClassReference(bytes, name: name) {
            return CaptureType(
                size: 8, alignment: 8, plan: TypePlan(steps: [.strong(offset: 0, path: "")], complete: true))
        }
        return nil
    }

    /// A struct the runtime cannot make metadata for, laid out from its field descriptor: the
    /// compiler emits no metadata accessor for a private struct nothing asks the metadata of
    /// (Swift Testing's runner keeps its `_Context` in closures so; the concurrency library's
    /// sleep captures its `UnsafeSleepStateToken`), so resolving its name fails, though its
    /// fields' types resolve. Swift lays a struct's stored properties out in declaration order,
    /// each at its alignment. Nil unless every field's type resolves without the struct's
    /// generic arguments (a field of a generic parameter's type depends on them).
    static func fromFieldDescriptor(_ name: UnsafeRawPointer, bytes: [UInt8]) -> CaptureType? {
        // A symbolic reference alone (a non-generic struct), or with generic arguments (`…G`).
        guard bytes.count >= 5, bytes[0] == 0x01 || bytes[0] == 0x02,
            bytes.count == 5 || bytes.last == UInt8(ascii: "G"),
            let descriptor = symbolicTarget(name, indirect: bytes[0] == 0x02),
            descriptor.load(as: UInt32.self) & 0x1F == 17,  // a struct
            let fields = relativeTarget(descriptor + 16)
        else { return nil }
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12, count <= 256 else { return nil }
        var laidOut: [TypePlan.Field] = []
        var size = 0
        var alignment = 1
        for index in 0..<count {
            let record = fields + 16 + index * recordSize
            guard let typeName = relativeTarget(record + 4) else { return nil }
            let length = mangledNameLength(typeName)
            let typeBytes = (0..<length).map { typeName.load(fromByteOffset: $0, as: UInt8.self) }
            guard length > 0, length < 4096, !mentionsGenericParameters(typeBytes),
                let type = _getTypeByMangledNameInContext(
                    typeName.assumingMemoryBound(to: UInt8.self), UInt(length), genericContext: descriptor,
                    genericArguments: nil)
            else { return nil }
            let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
            let fieldAlignment = Int(lg_type_flags(metadata) & 0xFF) + 1
            let offset = (size + fieldAlignment - 1) / fieldAlignment * fieldAlignment
            let fieldName = relativeTarget(record + 8).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            laidOut.append(
                TypePlan.Field(
                    offset: offset, type: type, name: fieldName ?? "\(index)",
                    ownership: ownership(ofMangledType: typeName)))
            size = offset + lg_type_size(metadata)
            alignment = max(alignment, fieldAlignment)
        }
        return CaptureType(size: size, alignment: alignment, plan: TypePlan.ofFields(laidOut))
    }

    /// `…I<convention>…_`, optionally wrapped in an optional (`Sg`): a lowered function type.
    private static func isLoweredFunction(_ bytes: [UInt8]) -> Bool {
        var body = bytes[...]
        if body.suffix(2).elementsEqual([UInt8(ascii: "S"), UInt8(ascii: "g")]) { body = body.dropLast(2) }
        guard body.last == UInt8(ascii: "_"), let marker = body.lastIndex(of: UInt8(ascii: "I")) else { return false }
        // `I`, a few convention letters (`eg`: escaping, guaranteed context; `d`, `n`, `r`…), then
        // `_`. A dependent member type (`…7LoadingPQy_`) also ends in `_`, with an identifier's
        // letters after its last `I`.
        let conventions = body[(marker + 1)..<(body.endIndex - 1)]
        return conventions.count <= 10 && conventions.contains(UInt8(ascii: "g"))
            && conventions.first.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } == true
            && !conventions.contains(UInt8(ascii: "Q"))
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

    /// The context descriptor a symbolic reference points at.
    private static func symbolicTarget(_ name: UnsafeRawPointer, indirect: Bool) -> UnsafeRawPointer? {
        guard let target = relativeTarget(name + 1) else { return nil }
        if indirect { return target.load(as: UnsafeRawPointer?.self) }
        return target
    }
}

/// Whether a mangled name may refer to generic parameters (`x`, `q_`, associated types `Q…`),
/// which cannot be resolved without the closure's generic arguments. Conservative: an identifier
/// containing those letters also answers yes (the name is then resolved with the arguments).
func mentionsGenericParameters(_ bytes: [UInt8]) -> Bool {
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
