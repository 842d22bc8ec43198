import CLeakGraphSupport

/// Closure contexts reached through a field (their captures laid out by their descriptor, generic
/// ones for the arguments they store) and the boxes captured `var`s live in.
extension HeapWalker {
    mutating func closure(code word: UInt, context: UInt, from work: Work, path: String) {
        let code = functionAddress(word)
        let position = heldPosition(context, false)
        if position >= 0 {
            // A context recorded by whole-process tracking is a node of its own, reached through
            // the field that holds the closure. Otherwise a closure with one class capture uses
            // the object itself as its context. A context is always an owned (strong) reference.
            let isContext =
                UnsafeRawPointer(bitPattern: context).map {
                    HeapObjectKind(metadata: $0.load(as: UnsafeRawPointer.self)) == .heapLocalVariable
                } ?? false
            add(
                work, to: .tracked(position), kind: .strong, label: isContext ? path : "capture", origin: .captured,
                closure: code)
            return
        }
        guard let header = memory.read(context, count: 16) else { return }
        let metadata = header.load(as: UInt.self)
        guard let kindWord = memory.readMetadata(metadata, count: 8) else { return }
        let kind = kindWord.load(as: UInt.self)
        let captureWork = Work(
            base: work.base, plan: work.plan, owner: work.owner, prefix: work.prefix, origin: .captured, closure: code,
            hops: work.hops)
        switch kind {
        case 0x400:
            // A closure's context: its captures, laid out as its capture descriptor says. The
            // compiler emits a context's metadata in the image; a word naming any other address
            // is not a context's (read from storage freed meanwhile, or a non-escaping closure's
            // context on the stack).
            guard map.isImage(metadata, length: 24),
                let metadataPointer = UnsafeRawPointer(bitPattern: metadata)
            else { return }
            let descriptor = CaptureDescriptor.of(metadata: metadataPointer, map: map)
            let layout: CaptureLayout
            if let fixed = descriptor.fixedLayout {
                layout = fixed
            } else {
                // Only a generic context's arguments are read before its captures.
                guard let arguments = memory.read(context, count: descriptor.argumentBytes) else { return }
                layout = captureLayout(descriptor, metadata: metadataPointer, context: arguments, trusted: false)
            }
            if let reason = layout.unreadReason {
                limits.insert("closure contexts with captures of a type that cannot be resolved")
                noteUnread(owner: work.owner, in: path, why: reason)
            }
            guard !layout.captures.isEmpty,
                let (base, owner, prefix) = enter(
                    storage: context, byteCount: layout.byteCount, type: "closure context", from: captureWork,
                    path: "capture")
            else { return }
            let label = owner == work.owner ? "capture" : prefix
            for capture in layout.captures.reversed() {
                stack.append(
                    Work(
                        base: base + capture.offset, plan: capture.plan, owner: owner,
                        prefix: label.isEmpty ? "capture" : label, origin: .captured, closure: code, hops: work.hops))
            }
        case 0x500:
            box(context, from: captureWork, path: "capture")
        default:
            // An untracked object captured alone: followed like any untracked reference.
            reference(context, from: captureWork, label: "capture")
        }
        _ = path
    }

    /// The capture layout of one context (`context`: its first bytes, at least the descriptor's
    /// `argumentBytes`). `trusted`: the context is held, so the generic arguments it stores are
    /// real metadata; otherwise (a copy that may be stale) each is checked before the runtime
    /// sees it.
    mutating func captureLayout(
        _ descriptor: CaptureDescriptor, metadata: UnsafeRawPointer, context: UnsafeRawPointer, trusted: Bool
    ) -> CaptureLayout {
        if let fixed = descriptor.fixedLayout { return fixed }
        let map = self.map
        return descriptor.layout(
            metadata: metadata, context: context,
            read: { address, count in memory.readMetadata(address, count: count) },
            isMetadata: { word in trusted ? map.readableBytes(at: word) >= 16 : memory.isUsableType(word) })
    }

    /// A generic heap box (a `var` capture of a generic context): its value's type and offset are
    /// in its metadata (kind 0x500).
    mutating func box(_ address: UInt, from work: Work, path: String) {
        let position = heldPosition(address, false)
        if position >= 0 {
            // A concrete box whole-process tracking recorded: walked on its own, as a context.
            add(work, to: .tracked(position), kind: .strong, label: path)
            return
        }
        if let node = nodeOfAddress[address] {
            add(work, to: .node(node), kind: .strong, label: path)
            return
        }
        // A box is the one storage that can lead back to itself (a recursive closure kept in the
        // `var` it captures: box → closure context → box, each with one holder, so none becomes
        // a node): walked once, or the walk would go round for ever.
        guard walkedBoxes.insert(address).inserted else { return }
        guard let header = memory.read(address, count: 16),
            let metadata = memory.readMetadata(header.load(as: UInt.self), count: 24)
        else { return }
        let metadataKind = metadata.load(as: UInt.self)
        if metadataKind == 0x400 {
            // A concrete box (a captured `var` of a non-generic type, when the context itself is
            // not recorded): laid out by its capture descriptor, like a context, one capture.
            // Its metadata is the compiler's, in an image (a stale copy's word is refused).
            let metadataWord = header.load(as: UInt.self)
            guard !memory.copies || map.isImage(metadataWord, length: 24),
                let metadataPointer = UnsafeRawPointer(bitPattern: metadataWord)
            else { return }
            let layout = CaptureDescriptor.of(metadata: metadataPointer, map: map).fixedLayout
            guard let layout, !layout.captures.isEmpty,
                let (base, owner, prefix) = enter(
                    storage: address, byteCount: layout.byteCount, type: "box", from: work, path: path)
            else { return }
            for capture in layout.captures.reversed() {
                stack.append(
                    Work(
                        base: base + capture.offset, plan: capture.plan, owner: owner, prefix: prefix,
                        origin: work.origin, closure: work.closure, hops: work.hops))
            }
            return
        }
        guard metadataKind == 0x500 else { return }
        let offset = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
        let boxed = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard memory.isUsableType(boxed), let boxedType = UnsafeRawPointer(bitPattern: boxed) else {
            limits.insert("boxes whose type cannot be read")
            noteUnread(owner: work.owner, in: path, why: "a box whose value's type cannot be checked")
            return
        }
        let type = unsafeBitCast(boxedType, to: Any.Type.self)
        let plan = TypePlan.of(type)
        guard !plan.steps.isEmpty else { return }
        boxedValue(in: address, at: offset, type: boxedType, plan: plan, name: "box of \(type)", from: work, path: path)
    }

    /// The code address of a closure's function word. An async closure's word is its *async
    /// function pointer*: a record in the image whose first field is the function's offset from
    /// it (an `Int32`), then the size of its frame. Named after the function, not the record.
    func functionAddress(_ word: UInt) -> UInt {
        // A record is 4-aligned; a word read from freed memory may be anything.
        guard word % 4 == 0, !map.isCode(word), map.isImage(word, length: 8),
            let record = UnsafeRawPointer(bitPattern: word)
        else {
            return word
        }
        let target = UInt(bitPattern: Int(bitPattern: word) &+ Int(record.load(as: Int32.self)))
        return map.isCode(target) ? target : word
    }
}
