#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads `llvm-symbolizer`'s JSON answer for one address (`{"Address":…,"Symbol":[{…},…]}`)
/// straight from its bytes: the functions, files and lines of its frames, nothing else.
///
/// `JSONSerialization` built a dictionary of boxed values for each answer, about 30 µs apiece:
/// a sixth of a test process's dump at exit, which reads a thousand answers from the cache. This
/// reader takes only the well-formed answers the tool prints; anything else (an escape it does not
/// decode, a shape it does not expect) gives nil, and the caller parses the line in full.
enum SymbolizerAnswer {
    /// The frames of `line`, innermost first; `[]` for an answer without frames (an error, an
    /// empty `Symbol`); nil when the line is not one this reader reads.
    static func frames(_ line: Substring) -> [ExternalSymbolizer.Result]? {
        var line = line
        return line.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.answer()
        }
    }

    /// A cursor over one line's bytes; each reader returns false or nil for what it does not take.
    private struct Reader {
        /// The line.
        let bytes: UnsafeBufferPointer<UInt8>
        /// The next byte to read.
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The whole line: one object whose `Symbol` array holds the frames, and nothing after it.
        mutating func answer() -> [ExternalSymbolizer.Result]? {
            var frames: [ExternalSymbolizer.Result] = []
            var sawSymbols = false
            let complete = object { reader, key in
                guard key == "Symbol" else { return reader.skipValue() }
                // Twice is not the tool's output: left to the full parse.
                guard !sawSymbols else { return false }
                sawSymbols = true
                return reader.array { reader in
                    guard let frame = reader.frame() else { return false }
                    frames.append(frame)
                    return true
                }
            }
            skipSpace()
            return complete && position == bytes.count ? frames : nil
        }

        /// One element of `Symbol`: a frame, innermost first.
        private mutating func frame() -> ExternalSymbolizer.Result? {
            var function: String?
            var file: String?
            var line: Int?
            var startLine: Int?
            let complete = object { reader, key in
                switch key {
                case "FunctionName":
                    function = reader.string()
                    return function != nil
                case "FileName":
                    file = reader.string()
                    return file != nil
                case "Line":
                    line = reader.integer()
                    return line != nil
                case "StartLine":
                    startLine = reader.integer()
                    return startLine != nil
                default: return reader.skipValue()
                }
            }
            guard complete else { return nil }
            return ExternalSymbolizer.Result(answeredFunction: function, file: file, line: line, startLine: startLine)
        }

        /// `{ "key": value, … }`, each value read by `member`; whether all of it was read.
        private mutating func object(_ member: (inout Reader, String) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        /// `[ value, … ]`, each value read by `element`.
        private mutating func array(_ element: (inout Reader) -> Bool) -> Bool {
            guard take(UInt8(ascii: "[")) else { return false }
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard element(&self) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        }

        /// A string without `\u` escapes (the tool writes paths and names as they are).
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var decoded: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: decoded, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    decoded.append(byte)
                }
            }
            return nil
        }

        /// A whole number (what `Line` and `StartLine` are).
        private mutating func integer() -> Int? {
            skipSpace()
            var value = 0
            var digits = 0
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, digits < 10 {
                value = value * 10 + Int(bytes[position] - 0x30)
                digits += 1
                position += 1
            }
            guard digits > 0, position < bytes.count, !"0123456789.eE".utf8.contains(bytes[position]) else {
                return nil
            }
            return value
        }

        /// Any value whose content is not wanted.
        private mutating func skipValue() -> Bool {
            skipSpace()
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"): return object { reader, _ in reader.skipValue() }
            case UInt8(ascii: "["): return array { reader in reader.skipValue() }
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// `word` (`true`, `false`, `null`) next, taken.
        private mutating func literal(_ word: StaticString) -> Bool {
            let length = word.utf8CodeUnitCount
            guard bytes.count - position >= length,
                memcmp(bytes.baseAddress! + position, word.utf8Start, length) == 0
            else { return false }
            position += length
            return true
        }

        /// A JSON number next (`-`, digits, a fraction, an exponent), taken.
        private mutating func number() -> Bool {
            func digits() -> Int {
                let start = position
                while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
                return position - start
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return false }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { return false }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard digits() > 0 else { return false }
            }
            return true
        }

        /// Skips spaces, then takes `byte` if it is next.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Moves past spaces, tabs and line breaks.
        private mutating func skipSpace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D
            {
                position += 1
            }
        }
    }
}
