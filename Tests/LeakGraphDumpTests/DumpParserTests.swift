import Foundation
import LeakGraphTestSupport
import Testing

@testable import LeakGraph
@testable import LeakGraphDump

/// Runs `body` on a parser over `text`, returning its value or its error.
private func parse<T>(
    _ text: String, _ body: (inout DumpParser) throws(DumpParseError) -> T
) -> Result<T, DumpParseError> {
    Array(text.utf8).withUnsafeBytes { bytes in
        var parser = DumpParser(bytes)
        do throws(DumpParseError) {
            return .success(try body(&parser))
        } catch {
            return .failure(error)
        }
    }
}

private func value<T>(_ text: String, _ body: (inout DumpParser) throws(DumpParseError) -> T) -> T? {
    try? parse(text, body).get()
}

private func failure<T>(_ text: String, _ body: (inout DumpParser) throws(DumpParseError) -> T) -> DumpParseError? {
    if case .failure(let error) = parse(text, body) { return error }
    return nil
}

@Suite("DumpParser")
struct DumpParserTests {
    @Test(
        "integers read exactly up to Int's limits",
        arguments: [
            ("0", 0), ("-0", 0), ("7", 7), ("  42 ", 42), ("-42", -42), ("3.0", 3), ("3.000", 3),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
        ])
    func integers(text: String, expected: Int) {
        // Alone (digits read with bounds checks), and with the bytes of a record after them
        // (twenty or more left: the loop without checks).
        for input in [text, text + ",\"next\":1}                    "] {
            #expect(value(input) { (parser: inout DumpParser) throws(DumpParseError) in try parser.int() } == expected)
        }
    }

    @Test(
        "integers beyond Int are out of range, never a trap",
        arguments: [
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999",
            "99999999999999999999999999999999",
        ])
    func integerOverflow(text: String) {
        for input in [text, text + ",\"next\":1}                    "] {
            let error = failure(input) { (parser: inout DumpParser) throws(DumpParseError) in try parser.int() }
            #expect(error?.kind == .value && error?.problem == "number out of range" && error?.offset == 0)
        }
    }

    @Test(
        "malformed or non-integer numbers are refused",
        arguments: [
            ("01", DumpParseError.Kind.syntax, "leading zero"), ("-x", .syntax, "expected a digit"),
            ("1.x", .syntax, "expected a digit after '.'"), ("1ex", .syntax, "exponent"), ("1.5", .value, "fraction"),
            ("1e2", .value, "fraction"), ("\"1\"", .value, "expected an integer, found a string"),
            ("x", .syntax, "expected a value"), ("", .syntax, "unexpected end of data"),
        ])
    func badIntegers(text: String, kind: DumpParseError.Kind, problem: String) {
        let error = failure(text) { (parser: inout DumpParser) throws(DumpParseError) in try parser.int() }
        #expect(error?.kind == kind)
        #expect(error?.problem.contains(problem) == true, "\(error?.problem ?? "parsed")")
    }

    @Test("doubles match the standard library's correctly rounded parse")
    func doubles() {
        var generator = SeededGenerator(seed: 99)
        var texts = [
            "0", "-0.0", "1.5", "1700000000.123", "0.001", "1e-5", "2.5E+3", "123456789012345678901234567890",
            "4.9e-324",
            "1.7976931348623157e308", "0.1", "0.30000000000000004", "9007199254740993", "1e22", "1e23",
        ]
        for _ in 0..<2000 {
            let number = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            texts.append("\(number)")
            texts.append(String(format: "%.3f", Double(generator.next() % 10_000_000_000_000) / 1000))
            texts.append(String(format: "%.17g", Double.random(in: -1e6...1e6, using: &generator)))
        }
        for text in texts where !text.contains("inf") && !text.contains("nan") {
            let parsed = value(text) { (parser: inout DumpParser) throws(DumpParseError) in try parser.double() }
            #expect(parsed?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
        let huge = failure("1e400") { (parser: inout DumpParser) throws(DumpParseError) in try parser.double() }
        #expect(huge?.problem == "number out of range")
    }

    @Test("strings decode escapes, \\u escapes and surrogate pairs")
    func strings() {
        let cases: [(String, String)] = [
            (#""plain""#, "plain"), (#""""#, ""), (#""a\"b\\c\/d""#, "a\"b\\c/d"),
            (#""\b\f\n\r\t""#, "\u{8}\u{c}\n\r\t"),
            (#""\u00e9\u00C9\u0000""#, "éÉ\u{0}"), (#""\ud83d\ude00!""#, "😀!"), ("\"raw é😀 —\"", "raw é😀 —"),
            (
                #""a long string that is shared when it repeats, \u2014 escaped""#,
                "a long string that is shared when it repeats, — escaped"
            ),
        ]
        for (text, expected) in cases {
            #expect(
                value(text) { (parser: inout DumpParser) throws(DumpParseError) in try parser.string() } == expected)
        }
        // The same long bytes twice give equal strings (the second from the cache).
        let twice = value(#"["a string longer than fifteen bytes","a string longer than fifteen bytes"]"#) {
            (parser: inout DumpParser) throws(DumpParseError) in
            try parser.beginArray()
            var first = true
            var result: [String] = []
            while try parser.nextElement(first: &first) { result.append(try parser.string()) }
            return result
        }
        #expect(twice == ["a string longer than fifteen bytes", "a string longer than fifteen bytes"])
    }

    @Test("errors carry the byte offset where the problem starts")
    func offsets() {
        let error = failure("[1 2]") { (parser: inout DumpParser) throws(DumpParseError) in
            try parser.beginArray()
            var first = true
            while try parser.nextElement(first: &first) { _ = try parser.int() }
        }
        #expect(error?.syntaxDescription == "not valid JSON at byte 3: expected ',' or ']'")
        let truncated = failure(#""abc"#) { (parser: inout DumpParser) throws(DumpParseError) in try parser.string() }
        #expect(truncated?.syntaxDescription == "not valid JSON at byte 4: unexpected end of data (truncated?)")
    }

    @Test(
        "skipValue accepts any JSON and refuses what is not",
        arguments: [
            (#"{"a":[1,-2.5e-3,true,false,null,"x\"y",{}],"b":{"c":[]}}"#, true), ("[]", true), ("{}", true),
            ("[1,]", false), (#"{"a":1,}"#, false), (#"{"a" 1}"#, false), ("[1 2]", false), ("tru", false),
            ("nul", false), ("[\"\\q\"]", false), ("{1:2}", false), ("+1", false), (".5", false),
        ])
    func skip(text: String, valid: Bool) {
        let result = parse(text) { (parser: inout DumpParser) throws(DumpParseError) in
            try parser.skipValue()
            try parser.finish()
        }
        if case .success = result { #expect(valid) } else { #expect(!valid) }
    }

    @Test("nesting is limited, so skipping a bomb cannot overflow the stack")
    func depthLimit() {
        let limit = DumpParser.maximumDepth
        let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(value(ok) { (parser: inout DumpParser) throws(DumpParseError) in try parser.skipValue() } != nil)
        let deep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = failure(deep) { (parser: inout DumpParser) throws(DumpParseError) in try parser.skipValue() }
        #expect(error?.problem == "nested deeper than \(limit) levels" && error?.offset == limit)
        let bomb = String(repeating: #"{"a":["#, count: 500_000)
        #expect(failure(bomb) { (parser: inout DumpParser) throws(DumpParseError) in try parser.skipValue() } != nil)
    }

    @Test("fields are matched in any order, with escaped keys, and unknown ones reported as -1")
    func fields() {
        let table = DumpFieldTable("id", "type", "label")
        let found = value(#"{"type":1,"zz":2,"i\u0064":3,"label":4}"#) {
            (parser: inout DumpParser) throws(DumpParseError) in
            try parser.beginObject()
            var first = true
            var seen: [Int] = []
            while let field = try parser.nextField(table, first: &first, hint: 0) {
                seen.append(field)
                try parser.skipValue()
            }
            return seen
        }
        #expect(found == [1, -1, 0, 2])
    }
}
