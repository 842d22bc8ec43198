import CLeakGraphSupport

/// Array, dictionary and set storage, and the keys paths show.
extension HeapWalker {
    mutating func array(_ storage: UInt, element: TypePlanBox, from work: Work, path: String) {
        // Storage is not held by the snapshot (only its owner is): read as `memory` says.
        guard storage != 0, let header = memory.read(storage, count: CollectionLayout.arrayElementsOffset) else {
            return
        }
        let count = header.load(fromByteOffset: CollectionLayout.arrayCountOffset, as: Int.self)
        guard count > 0 else { return }
        let plan = element.plan
        if let reason = plan.unreadReason {
            limits.insert("elements of a type whose layout cannot be read")
            noteUnread(owner: work.owner, in: "\(path)[…]", why: reason)
        }
        guard !plan.steps.isEmpty else { return }
        let stride = max(1, element.stride)
        let alignment = Int(lg_type_flags(unsafeBitCast(element.type.type, to: UnsafeRawPointer.self)) & 0xFF) + 1
        let start = (CollectionLayout.arrayElementsOffset + alignment - 1) / alignment * alignment
        let (elementBytes, overflow) = count.multipliedReportingOverflow(by: stride)
        guard !overflow, elementBytes <= Int(map.readableBytes(at: storage)) else {
            limits.insert("array storage that does not look like one")
            return
        }
        guard
            let (pointer, owner, prefix) = enter(
                storage: storage, byteCount: start + elementBytes, type: "[\(element.type.type)] storage", from: work,
                path: path)
        else { return }
        let elementWork = Work(
            base: pointer, plan: plan, owner: owner, prefix: prefix, origin: work.origin, closure: work.closure,
            hops: work.hops)
        for index in 0..<count {
            let base = pointer + start + index * stride
            if plan.isSingleReference {
                // The hot case, `[SomeClass]`: no label is built unless something is found.
                let word = base.load(as: UInt.self)
                if word != 0 { reference(word, from: elementWork, label: "\(prefix)[\(index)]") }
            } else {
                stack.append(
                    Work(
                        base: base, plan: plan, owner: owner, prefix: "\(prefix)[\(index)]", origin: work.origin,
                        closure: work.closure, hops: work.hops))
            }
        }
    }

    mutating func hashed(
        _ storage: UInt, key: TypePlanBox, value: TypePlanBox?, from work: Work, path: String
    ) {
        let bitmap = value == nil ? CollectionLayout.setBitmapOffset : CollectionLayout.dictionaryBitmapOffset
        guard storage != 0, let header = memory.read(storage, count: bitmap) else { return }
        let count = header.load(fromByteOffset: CollectionLayout.hashedCountOffset, as: Int.self)
        let scale = Int(header.load(fromByteOffset: CollectionLayout.hashedScaleOffset, as: Int8.self))
        guard count > 0 else { return }
        let keyPlan = key.plan
        let valuePlan = value?.plan ?? .empty
        guard !keyPlan.steps.isEmpty || !valuePlan.steps.isEmpty else { return }
        guard scale >= 0, scale < 40, count <= 1 << scale else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        // Header and occupancy bitmap in one read (a copy, when copying); the key and value
        // areas follow the bitmap in the same allocation.
        let bitmapBytes = ((1 << scale) + 63) / 64 * 8
        let kind = value == nil ? "Set<\(key.type.type)>" : "[\(key.type.type): \(value!.type.type)]"
        guard
            let (pointer, owner, prefix) = enter(
                storage: storage, byteCount: bitmap + bitmapBytes, type: "\(kind) storage", from: work, path: path)
        else { return }
        guard let buckets = CollectionLayout.occupiedBuckets(storage: pointer, bitmapOffset: bitmap) else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        let keysOffset = value == nil ? CollectionLayout.setElementsOffset : CollectionLayout.dictionaryKeysOffset
        let keyStride = max(1, key.stride)
        let valueStride = max(1, value?.stride ?? 1)
        // The key and value areas up to the last occupied bucket.
        let lastBucket = (buckets.last ?? 0) + 1
        guard
            let keys = memory.read(
                pointer.load(fromByteOffset: keysOffset, as: UInt.self), count: lastBucket * keyStride)
        else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        var values: UnsafeRawPointer?
        if value != nil {
            values = memory.read(
                pointer.load(fromByteOffset: CollectionLayout.dictionaryValuesOffset, as: UInt.self),
                count: lastBucket * valueStride)
            guard values != nil else {
                limits.insert("hashed storage that does not look like one")
                return
            }
        }
        for (ordinal, bucket) in buckets.enumerated() {
            let keyBase = keys + bucket * keyStride
            let name = { [copies = memory.copies] in
                Self.keyName(keyBase, type: key.type.type, ordinal: ordinal, copied: copies)
            }
            if !keyPlan.steps.isEmpty {
                let label = value == nil ? "\(prefix)[\(ordinal)]" : "\(prefix).keys[\(name())]"
                stack.append(
                    Work(
                        base: keyBase, plan: keyPlan, owner: owner, prefix: label, origin: work.origin,
                        closure: work.closure, hops: work.hops))
            }
            if let values, !valuePlan.steps.isEmpty {
                let valueBase = values + bucket * valueStride
                let elementWork = Work(
                    base: valueBase, plan: valuePlan, owner: owner, prefix: prefix, origin: work.origin,
                    closure: work.closure, hops: work.hops)
                if valuePlan.isSingleReference {
                    let word = valueBase.load(as: UInt.self)
                    if word != 0 && (work.hops > 0 || heldPosition(word, true) >= 0) {
                        reference(word, from: elementWork, label: "\(prefix)[\(name())]")
                    }
                } else {
                    stack.append(
                        Work(
                            base: valueBase, plan: valuePlan, owner: owner, prefix: "\(prefix)[\(name())]",
                            origin: work.origin, closure: work.closure, hops: work.hops))
                }
            }
        }
    }

    /// A key as a path shows it, from its type alone: strings quoted (at most 40 characters),
    /// integers as numbers, anything else by its position.
    static func keyName(_ pointer: UnsafeRawPointer, type: Any.Type, ordinal: Int, copied: Bool) -> String {
        if type == String.self {
            // Copied only when the copy retains nothing: a small string (its bytes are inline) or
            // an immortal one (a literal). A native string's storage is not held by the snapshot.
            // Read from a copy of storage that may be stale, only a small string: its bytes are
            // in the copy, where a literal's pointer could name anything.
            let discriminator = pointer.load(fromByteOffset: 8, as: UInt64.self) >> 60
            guard discriminator & (copied ? 0b0010 : 0b1010) != 0 else { return "#\(ordinal)" }
            let text = pointer.load(as: String.self)
            return "\"\(text.prefix(40))\""
        }
        if type == Int.self { return String(pointer.load(as: Int.self)) }
        return "#\(ordinal)"
    }
}
