#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Strings: escapes, UTF-8 validation, and the cache of short repeated ones.
extension DumpParser {
    /// Where a string's content lies, and whether it needs unescaping or UTF-8 validation.
    struct StringToken {
        var start: Int
        var end: Int
        var escaped: Bool
        var ascii: Bool
    }

    /// Consumes a string (the current byte must be `"`), checking its escapes.
    mutating func scanString() throws(DumpParseError) -> StringToken {
        let start = position &+ 1
        var offset = start
        var escaped = false
        var high: UInt8 = 0
        // Eight bytes at a time while none of them is a quote, a backslash or a control
        // character (the usual case: most strings have no escapes).
        if let base {
            let ones: UInt64 = 0x0101_0101_0101_0101
            var highs: UInt64 = 0
            while offset &+ 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                guard special & (ones &* 0x80) == 0 else { break }
                highs |= word
                offset &+= 8
            }
            if highs & (ones &* 0x80) != 0 { high = 0x80 }
        }
        while true {
            let current = byte(at: offset)
            if current == UInt8(ascii: "\"") { break }
            if current == UInt8(ascii: "\\") {
                escaped = true
                offset = try scanEscape(at: offset)
                continue
            }
            if current < 0x20 {
                throw syntaxError(offset >= count ? "" : "control character in a string", at: offset)
            }
            high |= current
            offset &+= 1
        }
        position = offset &+ 1
        return StringToken(start: start, end: offset, escaped: escaped, ascii: high < 0x80)
    }

    /// Checks the escape at `offset` (a backslash) and returns the offset after it; `\u` escapes
    /// must pair surrogates, since a lone one is not a character a `String` can hold.
    func scanEscape(at offset: Int) throws(DumpParseError) -> Int {
        switch byte(at: offset &+ 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return offset &+ 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: offset &+ 2)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw syntaxError("unpaired UTF-16 surrogate in a \\u escape", at: offset)
            }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return offset &+ 6 }
            guard byte(at: offset &+ 6) == UInt8(ascii: "\\"), byte(at: offset &+ 7) == UInt8(ascii: "u") else {
                throw syntaxError("unpaired UTF-16 surrogate in a \\u escape", at: offset)
            }
            let low = try hex4(at: offset &+ 8)
            guard low >= 0xDC00 && low <= 0xDFFF else {
                throw syntaxError("unpaired UTF-16 surrogate in a \\u escape", at: offset)
            }
            return offset &+ 12
        default:
            throw syntaxError("invalid escape in a string", at: offset)
        }
    }

    func hex4(at offset: Int) throws(DumpParseError) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            let current = byte(at: offset &+ index)
            let digit: UInt8
            switch current {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = current &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = current &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = current &- UInt8(ascii: "A") &+ 10
            default: throw syntaxError("expected 4 hexadecimal digits after \\u", at: offset &+ index)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Decodes the (already checked) escaped content of `token` into `scratch` as UTF-8.
    mutating func decodeEscapes(_ token: StringToken) {
        scratch.removeAll(keepingCapacity: true)
        var offset = token.start
        while offset < token.end {
            let current = byte(at: offset)
            guard current == UInt8(ascii: "\\") else {
                scratch.append(current)
                offset &+= 1
                continue
            }
            let kind = byte(at: offset &+ 1)
            offset &+= 2
            switch kind {
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                // Already validated by scanEscape; `try?` only satisfies the type checker.
                var scalar = (try? hex4(at: offset)) ?? 0xFFFD
                offset &+= 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = (try? hex4(at: offset &+ 2)) ?? 0xDC00
                    scalar = 0x10000 &+ ((scalar &- 0xD800) << 10) &+ (low &- 0xDC00)
                    offset &+= 6
                }
                appendUTF8(Unicode.Scalar(scalar) ?? "\u{FFFD}")
            default: scratch.append(kind)  // `"`, `\` and `/` stand for themselves.
            }
        }
    }

    mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: value))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(truncatingIfNeeded: value >> 6))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(truncatingIfNeeded: value >> 12))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(truncatingIfNeeded: value >> 18))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 12) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        }
    }

    /// Reads a string. Long strings are shared: the same bytes give the same `String` storage,
    /// which saves an allocation per repeated type name, label or closure name.
    mutating func string() throws(DumpParseError) -> String {
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: "\"") else { throw typeError(expected: "a string") }
        let quote = position
        let token = try scanString()
        let raw = slice(token.start, token.end)
        let shared = raw.count > StringCache.inlineLimit
        if shared, let cached = cache.lookup(raw, base: base) { return cached }
        let text: String
        if token.escaped {
            decodeEscapes(token)
            guard let decoded = scratch.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
                throw syntaxError("invalid UTF-8 in a string", at: quote)
            }
            text = decoded
        } else if token.ascii {
            text = String(decoding: raw, as: UTF8.self)
        } else {
            guard let decoded = String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self) else {
                throw syntaxError("invalid UTF-8 in a string", at: quote)
            }
            text = decoded
        }
        if shared { cache.insert(text, raw, start: token.start) }
        return text
    }

    /// Reads a string or `null`.
    mutating func optionalString() throws(DumpParseError) -> String? {
        if try null() { return nil }
        return try string()
    }

    /// Reads a string that must be one of `table`'s names: returns its index, or -1 (with the
    /// text in `unmatched`) for any other string. No `String` is made for a match.
    mutating func oneOf(_ table: DumpFieldTable, unmatched: inout String) throws(DumpParseError) -> Int {
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: "\"") else { throw typeError(expected: "a string") }
        let start = position
        if let base {
            // The common case: one of the names exactly, without escapes.
            for index in table.names.indices {
                if let length = table.quotedLength(of: index, at: base + (start &+ 1), available: count &- start &- 1) {
                    position = start &+ 1 &+ length
                    return index
                }
            }
        }
        let token = try scanString()
        let index: Int
        if token.escaped {
            decodeEscapes(token)
            index = scratch.withUnsafeBytes { table.index(of: $0, hint: -1) }
        } else {
            index = table.index(of: slice(token.start, token.end), hint: -1)
        }
        if index < 0 {
            position = start
            unmatched = try string()
        }
        return index
    }
}

/// A small direct-mapped cache from a string's raw bytes in the input to the `String` made from
/// them. Bounded (a dump of unique labels cannot grow it), and a collision only costs a miss.
struct StringCache {
    /// Swift stores UTF-8 strings up to 15 bytes inline without allocating, so sharing those
    /// would save nothing.
    static let inlineLimit = 15
    static let slotCount = 4096

    struct Slot {
        var hash: UInt64 = 0
        var start = 0
        var count = 0
        var text = ""
    }

    var slots: [Slot] = []

    static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        // Only called for more than 15 bytes, so both 8-byte loads are in range.
        let head = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: raw.count &- 8, as: UInt64.self)
        var mixed = head &* 0x9E37_79B9_7F4A_7C15 ^ (tail &+ UInt64(raw.count)) &* 0xC2B2_AE3D_27D4_EB4F
        mixed ^= mixed >> 29
        return mixed | 1
    }

    func lookup(_ raw: UnsafeRawBufferPointer, base: UnsafeRawPointer?) -> String? {
        guard !slots.isEmpty, let base, let rawBase = raw.baseAddress else { return nil }
        let hash = Self.hash(raw)
        let slot = slots[Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)]
        guard slot.hash == hash, slot.count == raw.count,
            memcmp(base + slot.start, rawBase, raw.count) == 0
        else { return nil }
        return slot.text
    }

    mutating func insert(_ text: String, _ raw: UnsafeRawBufferPointer, start: Int) {
        if slots.isEmpty { slots = Array(repeating: Slot(), count: Self.slotCount) }
        let hash = Self.hash(raw)
        slots[Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)] = Slot(
            hash: hash, start: start, count: raw.count, text: text)
    }
}

/// The parser holds raw pointers into memory its caller owns, and mutable position state.
