import CLeakGraphSupport

/// The source line of a closure whose stored function is a *partial apply forwarder*.
///
/// A closure that captures a single object and nothing else (`onChange = { self.count += 1 }`,
/// the textbook cycle) has that object as its context, and the function stored beside it is a
/// thunk the compiler made to pass the context on: `partial apply for closure #1 in
/// ViewModel.bind()`, at line 0 of `/<compiler-generated>`. Its entry names no line of the
/// user's, so the fix site fell back to where the object was allocated — another function.
///
/// The closure's own line is found from the thunk's code, checked by name:
/// - unoptimised, the thunk ends in a direct jump (or call) to the closure: the target of each
///   such instruction among its first bytes is symbolized, and the one whose function is the
///   closure the thunk names gives the closure's first line;
/// - optimised, the closure's body is inlined into the thunk: the addresses just past its entry
///   have the closure as an inlined frame, whose first line the symbolizer says.
///
/// A thunk whose target is not found keeps its frame as it was (the report then says the
/// closure without a line, as before).
enum ForwarderTargets {
    /// The prefix the demangler gives a partial apply forwarder.
    static let forwarderPrefix = "partial apply for "

    /// How many bytes of a thunk are read: a forwarder's prologue, argument moves and jump fit
    /// well within (the body inlined into an optimised one starts within its first few
    /// instructions).
    static let bytesRead = 48

    /// `frames` (entry frames of closure functions, by address) with each partial apply
    /// forwarder that has no source line replaced by the frame of the closure it forwards to,
    /// at the closure's first line.
    static func sourced(_ frames: [UInt: Symbolicator.Frame]) -> [UInt: Symbolicator.Frame] {
        let forwarders = frames.filter { isUnsourcedForwarder($0.value) }
        guard !forwarders.isEmpty else { return frames }
        var result = frames
        // The jumps' targets first (unoptimised code), then, for the thunks none of whose
        // targets is the closure, the addresses inside them (the closure inlined): one batch
        // each, and the second, a few dozen addresses a thunk, only where needed.
        var codeOfForwarder: [UInt: [UInt8]] = [:]
        for address in forwarders.keys { codeOfForwarder[address] = codeBytes(at: address) }
        // A thunk forwards within its own image: a false target elsewhere would start the
        // symbolizer on another library for nothing.
        let images = LoadedImages()
        func sameImage(_ target: UInt, _ address: UInt) -> Bool {
            guard let image = images.image(containing: address)?.path else { return false }
            return images.image(containing: target)?.path == image
        }
        func resolve(_ candidates: (UInt, [UInt8]) -> [UInt], frames: ([Symbolicator.Frame]) -> [Symbolicator.Frame]) {
            let pending = forwarders.filter { result[$0.key] == $0.value }
            let lookups = pending.keys.map { ($0, candidates($0, codeOfForwarder[$0] ?? [])) }
            let unique = Array(Set(lookups.flatMap(\.1)))
            guard !unique.isEmpty else { return }
            let chains = Dictionary(
                uniqueKeysWithValues: zip(unique, Symbolicator.frameChains(for: unique, returnAddresses: false)))
            for (address, addresses) in lookups {
                guard let function = pending[address]?.function else { continue }
                let target = String(function.dropFirst(forwarderPrefix.count))
                let found = addresses.lazy.compactMap { chains[$0] }.map(frames).joined().first {
                    isSourced($0, named: target)
                }
                if var frame = found {
                    // The closure's first line (where a capture list is written), not the line
                    // of the instruction looked up.
                    frame.line = frame.startLine ?? frame.line
                    result[address] = frame
                }
            }
        }
        resolve(
            { address, code in directBranchTargets(in: code, at: address).filter { sameImage($0, address) } },
            frames: { $0.last.map { [$0] } ?? [] })
        resolve({ address, code in code.indices.dropFirst().map { address + UInt($0) } }, frames: { $0 })
        return result
    }

    /// A forwarder's entry frame with no line of source: what ``sourced(_:)`` looks behind.
    /// A forwarder to another thunk (`partial apply for thunk for @escaping …`, a reabstraction) is
    /// not: its target has no line of source either, and looking behind it would only cost
    /// lookups.
    static func isUnsourcedForwarder(_ frame: Symbolicator.Frame) -> Bool {
        guard let function = frame.function, function.hasPrefix(forwarderPrefix) else { return false }
        let target = function.dropFirst(forwarderPrefix.count)
        guard !target.hasPrefix("thunk for ") && !target.hasPrefix("reabstraction thunk") else { return false }
        // At `/<compiler-generated>`: the image has debug information, so the closure behind has
        // a line. A thunk in a library without it (no file at all) has nothing to find.
        return frame.file == "/<compiler-generated>"
    }

    /// Whether `frame` is the function `name` at a real line of a real file.
    private static func isSourced(_ frame: Symbolicator.Frame, named name: String) -> Bool {
        frame.function == name && frame.file != nil && frame.file != "/<compiler-generated>"
            && ((frame.startLine ?? frame.line) ?? 0) > 0
    }

    /// The first ``bytesRead`` bytes of code at `address`, copied by the kernel; none when they
    /// are not all readable (a thunk within the last bytes of its mapping is not looked behind).
    static func codeBytes(at address: UInt) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: bytesRead)
        let copied = bytes.withUnsafeMutableBytes { lg_safe_copy($0.baseAddress, address, bytesRead) }
        return Array(bytes.prefix(copied))
    }

    /// The targets of the direct calls and jumps that `code` (at `address`) may hold: every
    /// position that decodes as one, as the bytes are not decoded instruction by instruction —
    /// a false one names some other function, which the name check then turns down.
    static func directBranchTargets(in code: [UInt8], at address: UInt) -> [UInt] {
        var targets: [UInt] = []
        #if arch(x86_64)
            // `call rel32` (E8) and `jmp rel32` (E9): the target is relative to the next instruction.
            var offset = 0
            while offset + 5 <= code.count {
                if code[offset] == 0xE8 || code[offset] == 0xE9 {
                    let displacement = Int32(bitPattern: littleEndianWord(code, at: offset + 1))
                    targets.append(UInt(bitPattern: Int(bitPattern: address) &+ offset &+ 5 &+ Int(displacement)))
                }
                offset += 1
            }
        #elseif arch(arm64)
            // `b imm26` and `bl imm26`, at instruction boundaries (every four bytes).
            var offset = 0
            while offset + 4 <= code.count {
                let word = littleEndianWord(code, at: offset)
                if word & 0x7C00_0000 == 0x1400_0000 {
                    // The low 26 bits, sign-extended, count instructions.
                    let displacement = Int32(bitPattern: word << 6) >> 6
                    targets.append(UInt(bitPattern: Int(bitPattern: address) &+ offset &+ Int(displacement) &* 4))
                }
                offset += 4
            }
        #endif
        return targets
    }

    private static func littleEndianWord(_ code: [UInt8], at offset: Int) -> UInt32 {
        UInt32(code[offset]) | UInt32(code[offset + 1]) << 8 | UInt32(code[offset + 2]) << 16
            | UInt32(code[offset + 3]) << 24
    }
}
