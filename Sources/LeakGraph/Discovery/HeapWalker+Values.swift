import CLeakGraphSupport

/// Enum payloads (indirect ones through their boxes) and existential containers.
extension HeapWalker {
    mutating func enumeration(_ value: UnsafeRawPointer, info: EnumInfo, from work: Work, path: String) {
        let metadata = unsafeBitCast(info.metadata.type, to: UnsafeRawPointer.self)
        let tag = Int(lg_enum_tag(value, metadata))
        guard tag < info.cases.count, let payloadType = info.cases[tag].payload?.type else { return }
        let label = info.isOptional ? path : Self.join(path, info.cases[tag].name)
        var payload = value
        if info.isMultiPayload {
            // The tag may sit in the payload's spare bits: project a bitwise copy (no retains).
            let size = max(1, lg_type_size(metadata))
            let copy = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            copy.copyMemory(from: value, byteCount: size)
            lg_enum_project(copy, metadata)
            scratch.append(copy)
            payload = UnsafeRawPointer(copy)
        }
        let plan = TypePlan.of(payloadType)
        guard !plan.steps.isEmpty else { return }
        if info.cases[tag].isIndirect {
            // The payload lives in a heap box (shared by every copy of the value); the offset of
            // its value is in the box's metadata, whatever kind of box the compiler chose.
            let boxWord = payload.load(as: UInt.self)
            guard boxWord != 0 else { return }
            let name = "indirect \(info.metadata.type).\(info.cases[tag].name)"
            if heldPosition(boxWord, false) >= 0 || nodeOfAddress[boxWord] != nil {
                _ = enter(storage: boxWord, byteCount: 16, type: name, from: work, path: label)
                return
            }
            guard let header = memory.read(boxWord, count: 16),
                let boxMetadata = memory.readMetadata(header.load(as: UInt.self), count: 16)
            else { return }
            let offset = Int(boxMetadata.load(fromByteOffset: 8, as: UInt32.self))
            let size = lg_type_size(unsafeBitCast(payloadType, to: UnsafeRawPointer.self))
            guard offset >= 16, offset < 4096,
                let (base, owner, prefix) = enter(
                    storage: boxWord, byteCount: offset + size, type: name, from: work, path: label)
            else { return }
            stack.append(
                Work(
                    base: base + offset, plan: plan, owner: owner, prefix: prefix, origin: work.origin,
                    closure: work.closure, hops: work.hops))
            return
        }
        stack.append(
            Work(
                base: payload, plan: plan, owner: work.owner, prefix: label, origin: work.origin, closure: work.closure,
                hops: work.hops))
    }

    mutating func existential(_ container: UnsafeRawPointer, from work: Work, path: String) {
        let typeWord = container.load(fromByteOffset: 24, as: UInt.self)
        guard typeWord != 0, let typePointer = UnsafeRawPointer(bitPattern: typeWord) else { return }
        if !memory.isUsableType(typeWord) {
            // A class instance the snapshot holds vouches for its own class.
            let payload = container.load(as: UInt.self)
            guard payload != 0, heldPosition(payload, false) >= 0,
                UnsafeRawPointer(bitPattern: payload)?.load(as: UInt.self) == typeWord
            else {
                limits.insert("existential values of a type that cannot be checked")
                noteUnread(owner: work.owner, in: path, why: "an existential value whose type cannot be checked")
                return
            }
            memory.trust(type: typeWord)
        }
        let type = unsafeBitCast(typePointer, to: Any.Type.self)
        let plan = TypePlan.of(type)
        guard !plan.steps.isEmpty else { return }
        let flags = lg_type_flags(typePointer)
        if flags & 0x0002_0000 == 0 {
            // Stored inline in the container's three words.
            stack.append(
                Work(
                    base: container, plan: plan, owner: work.owner, prefix: path, origin: work.origin,
                    closure: work.closure, hops: work.hops))
            return
        }
        // Out of line: the first word is a heap box, shared by every copy of the existential.
        let boxWord = container.load(as: UInt.self)
        guard boxWord != 0 else { return }
        let alignMask = Int(flags & 0xFF)
        boxedValue(
            in: boxWord, at: (16 + alignMask) & ~alignMask, type: typePointer, plan: plan, name: "box of \(type)",
            from: work, path: path)
    }

    /// Walks the value of type `typePointer` (its plan `plan`) at `offset` in the heap box at
    /// `address`, a box every copy of the value shares: entered as storage (see `enter`), so that
    /// it is charged to its one holder or becomes a node of its own. `stillHolds` checks the
    /// entered bytes (a copy, when copying) before the value is walked.
    mutating func boxedValue(
        in address: UInt, at offset: Int, type typePointer: UnsafeRawPointer, plan: TypePlan,
        name: @autoclosure () -> String, from work: Work, path: String,
        stillHolds: (UnsafeRawPointer) -> Bool = { _ in true }
    ) {
        guard
            let (base, owner, prefix) = enter(
                storage: address, byteCount: offset + max(lg_type_size(typePointer), plan.bytesRead), type: name(),
                from: work, path: path),
            stillHolds(base)
        else { return }
        stack.append(
            Work(
                base: base + offset, plan: plan, owner: owner, prefix: prefix, origin: work.origin,
                closure: work.closure, hops: work.hops))
    }
}

/// `any Error` values.
extension HeapWalker {
    /// The metadata kind of the runtime's error box (`ErrorObject`).
    static let errorBoxMetadataKind: UInt = 0x501

    /// An `any Error` value's box. Without Objective-C interop the runtime lays it out as an
    /// object header, the value's type, its `Error` conformance, then the value at its type's
    /// alignment; the box is shared by every copy of the error, like an existential's box.
    mutating func errorBox(_ address: UInt, from work: Work, path: String) {
        if let node = nodeOfAddress[address] {
            add(work, to: .node(node), kind: .strong, label: path)
            return
        }
        guard let header = memory.read(address, count: 32),
            let boxMetadata = memory.readMetadata(header.load(as: UInt.self), count: 8),
            boxMetadata.load(as: UInt.self) == Self.errorBoxMetadataKind
        else {
            noteUnread(owner: work.owner, in: path, why: "an `any Error` value whose box cannot be read")
            return
        }
        let typeWord = header.load(fromByteOffset: 16, as: UInt.self)
        guard memory.isUsableType(typeWord), let typePointer = UnsafeRawPointer(bitPattern: typeWord) else {
            limits.insert("errors whose type cannot be read")
            noteUnread(owner: work.owner, in: path, why: "an `any Error` value whose type cannot be checked")
            return
        }
        let type = unsafeBitCast(typePointer, to: Any.Type.self)
        let plan = TypePlan.of(type)
        guard !plan.steps.isEmpty else {
            if let reason = plan.unreadReason { noteUnread(owner: work.owner, in: path, why: reason) }
            return
        }
        let alignMask = Int(lg_type_flags(typePointer) & 0xFF)
        // Read again once entered (a copy, when copying): the box must still hold that type.
        boxedValue(
            in: address, at: (32 + alignMask) & ~alignMask, type: typePointer, plan: plan,
            name: "error box of \(type)", from: work, path: path,
            stillHolds: { $0.load(fromByteOffset: 16, as: UInt.self) == typeWord })
    }
}
