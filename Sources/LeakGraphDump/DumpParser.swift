#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A byte-level JSON reader for LeakGraph dumps, far faster and leaner than `JSONDecoder`
/// because it builds the caller's values directly from the input bytes, with no intermediate
/// tree, no `Codable` machinery, and one shared `String` for each repeated long string.
///
/// The caller drives it in document order (``beginObject()``, ``nextField(_:first:hint:)``,
/// ``string()``, ``int()``, ``skipValue()``…), so it knows which field each value belongs to.
/// It accepts exactly RFC 8259 JSON (plus a leading UTF-8 byte order mark) and never traps on
/// any input: reads past the end see a 0 byte, which no rule accepts; nesting is limited to
/// ``maximumDepth``; integers are accumulated with checked arithmetic. Errors carry the byte
/// offset where they start.
///
/// Not thread safe; the input must stay valid and unchanged while the parser is used. Strings it
/// returns own their bytes.
///
/// Cost: one pass over the input; for a LeakGraph dump, building the values (allocating arrays
/// and strings) costs about as much as the parsing itself.
struct DumpParser {
    /// The deepest nesting of arrays and objects accepted; a LeakGraph dump needs 4, newer
    /// fields get room to grow, and skipping a hostile `[[[[…` cannot exhaust the stack.
    static let maximumDepth = 64

    let base: UnsafeRawPointer?
    /// Number of input bytes.
    let count: Int
    /// Offset of the next byte to read.
    var position: Int
    /// How deeply nested the parser is (a reader of part of a file starts where the whole one is).
    var depth = 0
    var scratch: [UInt8] = []
    var cache = StringCache()

    /// Creates a parser over `bytes`, which must outlive it.
    init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes.baseAddress
        count = bytes.count
        position = 0
        // A byte order mark is not JSON, but editors add it; skipping it costs nothing.
        if count >= 3, byte(at: 0) == 0xEF, byte(at: 1) == 0xBB, byte(at: 2) == 0xBF { position = 3 }
    }

    // MARK: Bytes

    /// The byte at `offset`, or 0 past the end: 0 is invalid at every point of the grammar, so
    /// running out of input becomes an ordinary error without a separate end check on every rule.
    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        guard offset >= 0 && offset < count, let base else { return 0 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while true {
            let current = byte(at: position)
            guard current == 0x20 || current == 0x0A || current == 0x0D || current == 0x09 else { return }
            position &+= 1
        }
    }

    /// The raw bytes `start..<end` (which callers keep inside the input).
    func slice(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        guard let base, start >= 0, end <= count, start <= end else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base + start, count: end - start)
    }

    // MARK: Errors

    /// A syntax error at `offset`; running out of input says so, since truncation is the usual cause.
    func syntaxError(_ problem: String, at offset: Int? = nil) -> DumpParseError {
        let offset = offset ?? position
        if offset >= count {
            return DumpParseError(kind: .syntax, offset: count, problem: "unexpected end of data (truncated?)")
        }
        return DumpParseError(kind: .syntax, offset: offset, problem: problem)
    }

    /// The error for a value of the wrong type at the current position, or a syntax error when
    /// what is there does not start any JSON value.
    func typeError(expected: String) -> DumpParseError {
        let found: String
        switch byte(at: position) {
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): found = "a number"
        default: return syntaxError("expected a value")
        }
        return DumpParseError(kind: .value, offset: position, problem: "expected \(expected), found \(found)")
    }

    // MARK: Structure

    /// Checks that only whitespace follows the top-level value.
    mutating func finish() throws(DumpParseError) {
        skipWhitespace()
        guard position >= count else { throw syntaxError("unexpected data after the end of the top-level value") }
    }

    /// Whether the next value is an object (without consuming anything but whitespace).
    mutating func atObject() -> Bool {
        skipWhitespace()
        return byte(at: position) == UInt8(ascii: "{")
    }

    /// Consumes `{`; use ``nextField(_:first:hint:)`` for its members.
    mutating func beginObject() throws(DumpParseError) {
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: "{") else { throw typeError(expected: "an object") }
        try enter()
        position &+= 1
    }

    /// Consumes `[`; use ``nextElement(first:)`` for its elements.
    mutating func beginArray() throws(DumpParseError) {
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: "[") else { throw typeError(expected: "an array") }
        try enter()
        position &+= 1
    }

    mutating func enter() throws(DumpParseError) {
        guard depth < Self.maximumDepth else {
            throw syntaxError("nested deeper than \(Self.maximumDepth) levels")
        }
        depth &+= 1
    }

    /// Reads up to the next member's value: returns the index of its key in `table` (-1 for a
    /// key the table does not have, whose value the caller must skip), or nil after the closing
    /// `}`. `first` must start true for each object.
    mutating func nextField(_ table: DumpFieldTable, first: inout Bool, hint: Int) throws(DumpParseError) -> Int? {
        skipWhitespace()
        var current = byte(at: position)
        if first {
            first = false
            if current == UInt8(ascii: "}") {
                position &+= 1
                depth &-= 1
                return nil
            }
        } else if current == UInt8(ascii: ",") {
            position &+= 1
            skipWhitespace()
            current = byte(at: position)
        } else if current == UInt8(ascii: "}") {
            position &+= 1
            depth &-= 1
            return nil
        } else {
            throw syntaxError("expected ',' or '}'")
        }
        guard current == UInt8(ascii: "\"") else { throw syntaxError("expected a string key") }
        if let base,
            let length = table.quotedLength(of: hint, at: base + (position &+ 1), available: count &- position &- 1)
        {
            position &+= 1 &+ length
            skipWhitespace()
            guard byte(at: position) == UInt8(ascii: ":") else { throw syntaxError("expected ':'") }
            position &+= 1
            return hint
        }
        let token = try scanString()
        let index: Int
        if token.escaped {
            decodeEscapes(token)
            index = scratch.withUnsafeBytes { table.index(of: $0, hint: hint) }
        } else {
            index = table.index(of: slice(token.start, token.end), hint: hint)
        }
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: ":") else { throw syntaxError("expected ':'") }
        position &+= 1
        return index
    }

    /// Moves to the next element of the current array: true when there is one, false after the
    /// closing `]`. `first` must start true for each array. (`[1,]` fails when the caller reads
    /// the missing value.)
    mutating func nextElement(first: inout Bool) throws(DumpParseError) -> Bool {
        skipWhitespace()
        let current = byte(at: position)
        if first {
            first = false
            if current == UInt8(ascii: "]") {
                position &+= 1
                depth &-= 1
                return false
            }
            return true
        }
        if current == UInt8(ascii: ",") {
            position &+= 1
            return true
        }
        if current == UInt8(ascii: "]") {
            position &+= 1
            depth &-= 1
            return false
        }
        throw syntaxError("expected ',' or ']'")
    }

    /// Skips one value of any type, checking its syntax (newer writers may add fields).
    mutating func skipValue() throws(DumpParseError) {
        skipWhitespace()
        switch byte(at: position) {
        case UInt8(ascii: "{"):
            try enter()
            position &+= 1
            var first = true
            let anyKey = DumpFieldTable()
            while try nextField(anyKey, first: &first, hint: -1) != nil { try skipValue() }
        case UInt8(ascii: "["):
            try enter()
            position &+= 1
            var first = true
            while try nextElement(first: &first) { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try bool()
        case UInt8(ascii: "n"):
            _ = try null()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
        default:
            throw syntaxError("expected a value")
        }
    }

    // MARK: Literals

    /// Consumes `null` if it is next: true if it was.
    mutating func null() throws(DumpParseError) -> Bool {
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Reads `true` or `false`.
    mutating func bool() throws(DumpParseError) -> Bool {
        skipWhitespace()
        switch byte(at: position) {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default:
            throw typeError(expected: "a boolean")
        }
    }

    mutating func literal(_ text: StaticString) throws(DumpParseError) {
        let start = position
        // `null`, `true` and the `fals` of `false` compare as one 4-byte word.
        if let base, start &+ 5 <= count {
            let word = base.loadUnaligned(fromByteOffset: start, as: UInt32.self)
            let expected = UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt32.self)
            if word == expected
                && (text.utf8CodeUnitCount == 4
                    || base.load(fromByteOffset: start &+ 4, as: UInt8.self) == UInt8(ascii: "e"))
            {
                position = start &+ text.utf8CodeUnitCount
                return
            }
        }
        let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        for (offset, wanted) in expected.enumerated() where byte(at: start &+ offset) != wanted {
            throw syntaxError("expected '\(text)'", at: start &+ offset)
        }
        position = start &+ expected.count
    }
}

@available(*, unavailable)
extension DumpParser: Sendable {}
