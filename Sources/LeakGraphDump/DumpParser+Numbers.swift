#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbers: integers, and the decimal tokens the reader turns into doubles.
extension DumpParser {
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
            // Nineteen digits cannot overflow a UInt64, and with twenty bytes left none is read past
            // the end: ids and counts take this loop without the checks of the one below.
            if let base, offset &+ 20 <= count {
                var digits = 0
                while digit < 10 && digits < 19 {
                    magnitude = magnitude &* 10 &+ UInt64(digit)
                    offset &+= 1
                    digits &+= 1
                    digit = base.load(fromByteOffset: offset, as: UInt8.self) &- UInt8(ascii: "0")
                }
            }
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

    static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    func outOfRange(_ offset: Int) -> DumpParseError {
        DumpParseError(kind: .value, offset: offset, problem: "number out of range")
    }

    /// What ``scanNumber()`` learnt on the way, enough for the fast `Double` path.
    struct NumberToken {
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
    mutating func scanNumber() throws(DumpParseError) -> NumberToken {
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
}
