#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``DumpParser`` stopped: broken JSON text, or a well-formed value the caller cannot use.
struct DumpParseError: Error, Sendable {
    /// Broken JSON (`syntax`) is reported as such; a wrong type or out-of-range number (`value`)
    /// is reported with the field it was read for, which only the caller knows.
    enum Kind: Sendable {
        case syntax
        case value
    }

    var kind: Kind
    /// Zero-based byte offset in the input where the problem starts.
    var offset: Int
    /// What is wrong, in a few words: `expected ',' or ']'`.
    var problem: String

    /// The one-line text for a syntax error: `not valid JSON at byte 1234: expected ',' or ']'`.
    var syntaxDescription: String { "not valid JSON at byte \(offset): \(problem)" }
}

/// The key names (or string enumeration values) a reader looks for, as bytes, so that keys are
/// matched without creating a `String` for each one.
struct DumpFieldTable: Sendable {
    /// The names, in the caller's order: a match returns the index in this array.
    let names: [String]
    /// All names' UTF-8 back to back; name `i` is `flat[starts[i]..<starts[i + 1]]`. One flat
    /// buffer, because nested arrays cost a retain and release per comparison.
    private let flat: [UInt8]
    private let starts: [Int]

    init(_ names: String...) {
        self.init(names)
    }

    init(_ names: [String]) {
        self.names = names
        var flat: [UInt8] = []
        var starts = [0]
        for name in names {
            flat += name.utf8
            starts.append(flat.count)
        }
        self.flat = flat
        self.starts = starts
    }

    /// The index of the name equal to `key`, or -1; `hint` is tried first because writers emit
    /// fields in a fixed order, so the next field is almost always the one after the last.
    func index(of key: UnsafeRawBufferPointer, hint: Int) -> Int {
        if hint >= 0 && hint < names.count && equal(hint, key) { return hint }
        for index in names.indices where index != hint && equal(index, key) { return index }
        return -1
    }

    /// If name `index` followed by a closing quote is at `pointer` (with `available` bytes
    /// readable), the number of bytes that covers; else nil. Lets the parser match the expected
    /// key without scanning it as a string first.
    @inline(__always)
    func quotedLength(of index: Int, at pointer: UnsafeRawPointer, available: Int) -> Int? {
        guard index >= 0 && index < names.count else { return nil }
        let start = starts[index]
        let length = starts[index + 1] - start
        guard length < available, pointer.load(fromByteOffset: length, as: UInt8.self) == UInt8(ascii: "\"") else {
            return nil
        }
        let same = flat.withUnsafeBytes { names in
            guard let names = names.baseAddress else { return length == 0 }
            return Self.equal(names + start, pointer, length)
        }
        return same ? length + 1 : nil
    }

    /// Compares short byte runs inline: calling `memcmp` for a 2- to 17-byte key costs more
    /// than the comparison.
    @inline(__always)
    private static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ count: Int) -> Bool {
        guard count >= 8 else {
            for offset in 0..<count
            where left.load(fromByteOffset: offset, as: UInt8.self)
                != right.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }
        var offset = 0
        while offset &+ 8 <= count {
            guard
                left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset &+= 8
        }
        // The last word overlaps the previous one rather than reading past the end.
        return offset == count
            || left.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    }

    private func equal(_ index: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index]
        let length = starts[index + 1] - start
        guard length == key.count else { return false }
        for offset in 0..<length where flat[start + offset] != key[offset] { return false }
        return true
    }
}

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
    private var scratch: [UInt8] = []
    private var cache = StringCache()

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
    private mutating func skipWhitespace() {
        while true {
            let current = byte(at: position)
            guard current == 0x20 || current == 0x0A || current == 0x0D || current == 0x09 else { return }
            position &+= 1
        }
    }

    /// The raw bytes `start..<end` (which callers keep inside the input).
    private func slice(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
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
    private func typeError(expected: String) -> DumpParseError {
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

    private mutating func enter() throws(DumpParseError) {
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

    private mutating func literal(_ text: StaticString) throws(DumpParseError) {
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

    // MARK: Numbers

    /// Reads an integer; a fraction of zeros (`3.0`) is accepted, any other fraction or an
    /// exponent is a wrong type, and magnitudes beyond `Int` are "number out of range".
    mutating func int() throws(DumpParseError) -> Int {
        skipWhitespace()
        let start = position
        var offset = start
        let negative = byte(at: offset) == UInt8(ascii: "-")
        if negative { offset &+= 1 }
        var digit = byte(at: offset) &- UInt8(ascii: "0")
        guard digit < 10 else {
            if negative { throw syntaxError("expected a digit", at: offset) }
            throw typeError(expected: "an integer")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        if digit == 0 {
            offset &+= 1
            guard byte(at: offset) &- UInt8(ascii: "0") >= 10 else {
                throw syntaxError("leading zero in a number", at: offset)
            }
        } else {
            while digit < 10 {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                if o1 || o2 { overflow = true }
                magnitude = sum
                offset &+= 1
                digit = byte(at: offset) &- UInt8(ascii: "0")
            }
        }
        let next = byte(at: offset)
        if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position = start
            let number = try scanNumber()
            guard !number.hasExponent, number.fractionIsZero else {
                throw DumpParseError(kind: .value, offset: start, problem: "expected an integer, found a fraction")
            }
            offset = position
        }
        position = offset
        if overflow { throw outOfRange(start) }
        if negative {
            if magnitude == UInt64(Int.max) &+ 1 { return Int.min }
            guard magnitude <= UInt64(Int.max) else { throw outOfRange(start) }
            return -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw outOfRange(start) }
        return Int(magnitude)
    }

    /// Reads a number as a `Double`; values too large for one are "number out of range".
    mutating func double() throws(DumpParseError) -> Double {
        skipWhitespace()
        let start = position
        guard byte(at: start) == UInt8(ascii: "-") || byte(at: start) &- UInt8(ascii: "0") < 10 else {
            throw typeError(expected: "a number")
        }
        let number = try scanNumber()
        // Clinger's fast path: an integer mantissa below 2^53 scaled by an exact power of ten
        // gives the correctly rounded result with one multiplication or division.
        if number.digits <= 15 && number.exponent >= -22 && number.exponent <= 22 {
            var value = Double(number.mantissa)
            let scale = Self.powersOfTen[Int(number.exponent.magnitude)]
            value = number.exponent < 0 ? value / scale : value * scale
            return number.negative ? -value : value
        }
        let text = String(decoding: slice(start, position), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw outOfRange(start) }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private func outOfRange(_ offset: Int) -> DumpParseError {
        DumpParseError(kind: .value, offset: offset, problem: "number out of range")
    }

    /// What ``scanNumber()`` learnt on the way, enough for the fast `Double` path.
    private struct NumberToken {
        var negative = false
        /// The first significant digits as an integer (exact while `digits` ≤ 19).
        var mantissa: UInt64 = 0
        /// How many significant digits there are in all.
        var digits = 0
        /// The power of ten to scale `mantissa` by (saturating; only used when small).
        var exponent = 0
        var hasExponent = false
        var fractionIsZero = true

        mutating func add(_ digit: UInt8) {
            // 19 digits always fit in a UInt64; longer numbers take the slow path anyway.
            if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(digit) }
            digits &+= 1
        }
    }

    /// Consumes one number, checking RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    private mutating func scanNumber() throws(DumpParseError) -> NumberToken {
        var token = NumberToken()
        var offset = position
        if byte(at: offset) == UInt8(ascii: "-") {
            token.negative = true
            offset &+= 1
        }
        var digit = byte(at: offset) &- UInt8(ascii: "0")
        guard digit < 10 else { throw syntaxError("expected a digit", at: offset) }
        if digit == 0 {
            offset &+= 1
            guard byte(at: offset) &- UInt8(ascii: "0") >= 10 else {
                throw syntaxError("leading zero in a number", at: offset)
            }
        } else {
            while digit < 10 {
                token.add(digit)
                offset &+= 1
                digit = byte(at: offset) &- UInt8(ascii: "0")
            }
        }
        if byte(at: offset) == UInt8(ascii: ".") {
            offset &+= 1
            digit = byte(at: offset) &- UInt8(ascii: "0")
            guard digit < 10 else { throw syntaxError("expected a digit after '.'", at: offset) }
            while digit < 10 {
                if digit != 0 { token.fractionIsZero = false }
                // Leading fraction zeros of `0.001` are not significant digits.
                if token.digits > 0 || digit != 0 { token.add(digit) }
                token.exponent = max(token.exponent &- 1, -100_000)
                offset &+= 1
                digit = byte(at: offset) &- UInt8(ascii: "0")
            }
        }
        let marker = byte(at: offset)
        if marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            token.hasExponent = true
            offset &+= 1
            var exponentNegative = false
            if byte(at: offset) == UInt8(ascii: "+") || byte(at: offset) == UInt8(ascii: "-") {
                exponentNegative = byte(at: offset) == UInt8(ascii: "-")
                offset &+= 1
            }
            digit = byte(at: offset) &- UInt8(ascii: "0")
            guard digit < 10 else { throw syntaxError("expected a digit in the exponent", at: offset) }
            var exponent = 0
            while digit < 10 {
                // Saturates: beyond this the value is 0 or infinite anyway, decided by the slow path.
                exponent = min(exponent &* 10 &+ Int(digit), 100_000)
                offset &+= 1
                digit = byte(at: offset) &- UInt8(ascii: "0")
            }
            token.exponent = token.exponent &+ (exponentNegative ? -exponent : exponent)
        }
        position = offset
        return token
    }

    // MARK: Strings

    /// Where a string's content lies, and whether it needs unescaping or UTF-8 validation.
    private struct StringToken {
        var start: Int
        var end: Int
        var escaped: Bool
        var ascii: Bool
    }

    /// Consumes a string (the current byte must be `"`), checking its escapes.
    private mutating func scanString() throws(DumpParseError) -> StringToken {
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
    private func scanEscape(at offset: Int) throws(DumpParseError) -> Int {
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

    private func hex4(at offset: Int) throws(DumpParseError) -> UInt32 {
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
    private mutating func decodeEscapes(_ token: StringToken) {
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

    private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
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
private struct StringCache {
    /// Swift stores UTF-8 strings up to 15 bytes inline without allocating, so sharing those
    /// would save nothing.
    static let inlineLimit = 15
    private static let slotCount = 4096

    private struct Slot {
        var hash: UInt64 = 0
        var start = 0
        var count = 0
        var text = ""
    }

    private var slots: [Slot] = []

    private static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
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
@available(*, unavailable)
extension DumpParser: Sendable {}
