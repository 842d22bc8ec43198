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
        let size = min(UInt(lg_malloc_usable_size(pointer)), 4096, map.readableBytes(at: context))
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
