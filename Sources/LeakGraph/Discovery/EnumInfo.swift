import CLeakGraphSupport

/// The payload cases of an enum type, read from its descriptor, their types resolved in the
/// enum's generic context.
final class EnumInfo: Sendable {
    struct Case: Sendable {
        let name: String
        let payload: MetatypeBox?
        let isIndirect: Bool
    }

    let metadata: MetatypeBox
    let cases: [Case]
    let isOptional: Bool
    /// Several payload cases: the tag may live in the payload's spare bits.
    var isMultiPayload: Bool { cases.count > 1 }
    var hasPayloads: Bool { !cases.isEmpty }

    init(metadata: Any.Type, cases: [Case], isOptional: Bool) {
        self.metadata = MetatypeBox(type: metadata)
        self.cases = cases
        self.isOptional = isOptional
    }

    private static let cache = Locked<[UInt: EnumInfo?]>([:], heldAcrossFork: true)

    /// nil when the enum's payload types cannot be resolved.
    static func of(_ type: Any.Type) -> EnumInfo? {
        let key = UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let info = build(type)
        cache.withLock { $0[key] = info }
        return info
    }

    private static func build(_ type: Any.Type) -> EnumInfo? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        guard kind == 0x201 || kind == 0x202 else { return nil }
        // The enum value witnesses must be there (HasEnumWitnesses).
        guard lg_type_flags(metadata) & 0x0020_0000 != 0 else { return nil }
        if kind == 0x202, let wrapped = MetadataKind.optionalWrapped(type) {
            return EnumInfo(
                metadata: type, cases: [Case(name: "some", payload: MetatypeBox(type: wrapped), isIndirect: false)],
                isOptional: true)
        }
        guard let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self),
            let fields = relativeTarget(descriptor + 16)
        else { return nil }
        let payloadCount = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF)
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12, payloadCount <= count, count < 100_000 else { return nil }
        let isGeneric = descriptor.load(as: UInt32.self) & 0x80 != 0
        var cases: [Case] = []
        for index in 0..<payloadCount {
            let record = fields + 16 + index * recordSize
            let flags = record.load(as: UInt32.self)
            let name = relativeTarget(record + 8).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "?"
            guard let typeName = relativeTarget(record + 4) else { return nil }
            let length = mangledNameLength(typeName)
            let resolved = _getTypeByMangledNameInContext(
                typeName.assumingMemoryBound(to: UInt8.self), UInt(length), genericContext: descriptor,
                genericArguments: isGeneric ? metadata + 16 : nil)
            guard let payload = resolved else { return nil }
            cases.append(Case(name: name, payload: MetatypeBox(type: payload), isIndirect: flags & 1 != 0))
        }
        return EnumInfo(metadata: type, cases: cases, isOptional: false)
    }
}
