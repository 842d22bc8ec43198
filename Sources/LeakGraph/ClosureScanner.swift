import CLeakGraphSupport

/// Finds the tracked objects a closure captures by scanning its context for their addresses.
///
/// A closure value is two words, code and context. The context is null (no captures), the single
/// captured object itself, or a heap box holding the captures. Closures that went through a
/// generic or a reabstraction thunk hide the real context one level down: the thunk's box holds
/// an inner (code, context) pair, which the scan follows (depth 4).
///
/// Safety: a word is dereferenced only when it is the context of a closure the owner holds, or an
/// inner context found as above, and only after the memory map says it is mapped read-write and
/// its metadata says it is a closure box; reads stay within the malloc block (at most 4 KiB).
/// Addresses of captured objects are only compared with the set of live tracked objects.
struct ClosureScanner {
    let map: MemoryMap
    let isLive: (UInt) -> Bool

    struct Capture {
        let address: UInt
        /// The capturing box also holds `unowned` captures: strength cannot be known per word.
        let strengthUnknown: Bool
        /// The code address of the innermost closure whose context holds the capture (thunks
        /// wrap the user's closure; this names the user's one).
        let code: UInt
    }

    func captures(code: UInt, context: UInt) -> [Capture] {
        var found: [Capture] = []
        var visited: Set<UInt> = []
        scan(context: context, code: code, depth: 0, visited: &visited, into: &found)
        return found
    }

    private func scan(context: UInt, code: UInt, depth: Int, visited: inout Set<UInt>, into found: inout [Capture]) {
        guard context != 0, depth <= 4, visited.insert(context).inserted else { return }
        if isLive(context) {
            found.append(Capture(address: context, strengthUnknown: false, code: code))
            return
        }
        guard map.isHeapLike(context, length: 16) else { return }
        guard let pointer = UnsafeRawPointer(bitPattern: context) else { return }
        let metadata = pointer.load(as: UInt.self)
        guard metadata % 8 == 0, map.readableBytes(at: metadata) >= 24,
            let metadataPointer = UnsafeRawPointer(bitPattern: metadata)
        else { return }
        let kind = metadataPointer.load(as: UInt.self)
        // 0x400: a closure's heap box (HeapLocalVariable); 0x500: a boxed `var` capture.
        guard kind == 0x400 || kind == 0x500 else { return }
        let unknownStrength = kind == 0x400 && boxHasUnownedCaptures(metadataPointer)
        // The malloc block may be larger than the box: words past the box's end are stale and
        // could look like a capture. Use the box's exact size when the capture types say it.
        let blockSize = UInt(lg_malloc_usable_size(pointer))
        let exact = exactBoxSize(metadataPointer, kind: kind).map { min($0, blockSize) }
        let size = min(exact ?? blockSize, 4096, map.readableBytes(at: context))
        guard size > 16 else { return }
        let wordCount = Int(size / 8)
        var index = 2
        while index < wordCount {
            let word = pointer.load(fromByteOffset: index * 8, as: UInt.self)
            if word != 0 && isLive(word) {
                found.append(Capture(address: word, strengthUnknown: unknownStrength, code: code))
            } else if word != 0, index + 1 < wordCount, map.isCode(word) {
                let inner = pointer.load(fromByteOffset: (index + 1) * 8, as: UInt.self)
                if inner != 0 && !map.isCode(inner) {
                    scan(context: inner, code: word, depth: depth + 1, visited: &visited, into: &found)
                    index += 2
                    continue
                }
            }
            index += 1
        }
    }

    /// The size of a closure box from its capture descriptor (header, generic bindings, then each
    /// capture at its alignment), or of a `var` box from its boxed type; nil when some capture's
    /// type cannot be resolved without a generic context.
    private func exactBoxSize(_ metadata: UnsafeRawPointer, kind: UInt) -> UInt? {
        if kind == 0x500 {
            let offset = UInt(metadata.load(fromByteOffset: 8, as: UInt32.self))
            let boxed = metadata.load(fromByteOffset: 16, as: UInt.self)
            guard boxed != 0, map.readableBytes(at: boxed) >= 8, let type = UnsafeRawPointer(bitPattern: boxed) else {
                return nil
            }
            return offset + UInt(layout(of: unsafeBitCast(type, to: Any.Type.self)).size)
        }
        let descriptorWord = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard descriptorWord != 0, map.readableBytes(at: descriptorWord) >= 12,
            let descriptor = UnsafeRawPointer(bitPattern: descriptorWord)
        else { return nil }
        let typeCount = Int(descriptor.load(as: UInt32.self))
        let bindings = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
        guard typeCount < 256, bindings < 256, map.readableBytes(at: descriptorWord) >= UInt(12 + typeCount * 4) else {
            return nil
        }
        var offset = Int(metadata.load(fromByteOffset: 8, as: UInt32.self)) + bindings * 8
        for index in 0..<typeCount {
            guard let name = relativeTarget(descriptor + 12 + index * 4),
                map.readableBytes(at: UInt(bitPattern: name)) > 0,
                let (size, alignment) = captureLayout(name)
            else { return nil }
            offset = (offset + alignment - 1) / alignment * alignment + size
        }
        return UInt(offset)
    }

    /// Size and alignment of one capture, from its mangled type, for the shapes that can be
    /// known without resolving the type (the runtime's resolver aborts on names that need a
    /// generic context): references (`weak`, `unowned`, a non-generic class, optionally
    /// Optional), lowered escaping function types, and a few standard library scalars.
    private func captureLayout(_ name: UnsafeRawPointer) -> (size: Int, alignment: Int)? {
        let length = mangledNameLength(name)
        guard length > 0 else { return nil }
        switch ownership(ofMangledType: name) {
        case .weak, .unowned, .unownedUnsafe: return (8, 8)
        case .strong: break
        }
        let bytes = (0..<length).map { name.load(fromByteOffset: $0, as: UInt8.self) }
        // A symbolic reference to a class's context descriptor, maybe wrapped in Optional.
        if bytes.count == 5 || (bytes.count == 7 && bytes[5] == UInt8(ascii: "S") && bytes[6] == UInt8(ascii: "g")) {
            if bytes[0] == 0x01 || bytes[0] == 0x02, let descriptor = symbolicTarget(name, indirect: bytes[0] == 0x02) {
                let flags = descriptor.load(as: UInt32.self)
                let isGeneric = flags & 0x80 != 0
                if flags & 0x1F == 16 && !isGeneric { return (8, 8) }
            }
            return nil
        }
        // Lowered function types (`SiIegd_`) do not resolve as formal types; escaping ones are
        // a (code, context) pair.
        if bytes.last == UInt8(ascii: "_") && bytes.contains(UInt8(ascii: "I")) && bytes.contains(UInt8(ascii: "g")) {
            return (16, 8)
        }
        switch String(decoding: bytes, as: UTF8.self) {
        case "Si", "Su", "Sd", "s5Int64V", "s6UInt64V": return (8, 8)
        case "Sb", "s4Int8V", "s5UInt8V": return (1, 1)
        case "Sf", "s5Int32V", "s6UInt32V": return (4, 4)
        case "SS": return (16, 8)
        default: return nil
        }
    }

    /// The context descriptor a symbolic reference points at, if mapped.
    private func symbolicTarget(_ name: UnsafeRawPointer, indirect: Bool) -> UnsafeRawPointer? {
        guard let target = relativeTarget(name + 1) else { return nil }
        if indirect {
            guard map.readableBytes(at: UInt(bitPattern: target)) >= 8 else { return nil }
            let word = target.load(as: UInt.self)
            guard word != 0, map.readableBytes(at: word) >= 4 else { return nil }
            return UnsafeRawPointer(bitPattern: word)
        }
        return map.readableBytes(at: UInt(bitPattern: target)) >= 4 ? target : nil
    }

    private func layout(of type: Any.Type) -> (size: Int, alignment: Int) {
        func measure<T>(_: T.Type) -> [Int] { [MemoryLayout<T>.size, max(1, MemoryLayout<T>.alignment)] }
        let measured: [Int] = _openExistential(type, do: measure)
        return (measured[0], measured[1])
    }

    /// Reads the box's capture descriptor (when reflection metadata is present) and reports
    /// whether any capture is `unowned`: such captures store the object's address like strong
    /// ones do.
    private func boxHasUnownedCaptures(_ metadata: UnsafeRawPointer) -> Bool {
        let descriptorWord = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard descriptorWord != 0, map.readableBytes(at: descriptorWord) >= 12,
            let descriptor = UnsafeRawPointer(bitPattern: descriptorWord)
        else { return false }
        let typeCount = Int(descriptor.load(as: UInt32.self))
        guard typeCount < 256, map.readableBytes(at: descriptorWord) >= UInt(12 + typeCount * 4) else { return false }
        for index in 0..<typeCount {
            let record = descriptor + 12 + index * 4
            guard let name = relativeTarget(record),
                map.readableBytes(at: UInt(bitPattern: name)) > 0
            else { continue }
            switch ownership(ofMangledType: name) {
            case .unowned, .unownedUnsafe: return true
            case .strong, .weak: continue
            }
        }
        return false
    }
}
