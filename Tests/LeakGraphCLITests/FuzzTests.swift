import Foundation
import LeakGraph
import LeakGraphCLI
import LeakGraphTestSupport
import Testing

/// Issue 6, item 5: seeded mutations of real dumps never crash or hang the tool; each gives
/// either a valid report or one line naming the file and the problem.
@Suite("leakgraph fuzzing")
struct FuzzTests {
    /// Dumps written by ``JSONExporter`` from hand-built and random graphs.
    static let bases: [[UInt8]] = {
        var generator = SeededGenerator(seed: 2024)
        var random = GraphBuilder()
        for index in 0..<40 {
            random.object(
                ["Node", "Sink<Int>", "SinkDisposer", "ViewModel"][index % 4],
                label: index % 5 == 0 ? "n\(index)" : nil,
                rc: Int.random(in: 0...3, using: &generator),
                site: index % 3 == 0 ? "f\(index)() at F.swift:\(index)" : nil,
                state: index % 7 == 0 ? .completed : .unspecified)
        }
        for _ in 0..<70 {
            let from = UInt64.random(in: 1...40, using: &generator)
            let to = UInt64.random(in: 1...40, using: &generator)
            let kind = [EdgeKind.strong, .strong, .strong, .weak, .unowned, .unknown].randomElement(using: &generator)!
            random.edge(from, to, ["next", "parent", "capture", "sink"].randomElement(using: &generator)!, kind: kind)
        }
        return [Graphs.leakingPair, Graphs.heldPair, Graphs.closureLeak, Graphs.mixed, random].map {
            Array($0.json().utf8)
        }
    }()

    /// Values that break decoders, counters and arithmetic.
    static let hugeNumbers = [
        "99999999999999999999999999", "-9223372036854775808", "9223372036854775807", "18446744073709551615",
        "18446744073709551616", "1e308", "-1e308", "1e999", "-1", "0", "4294967296", "2147483648", "0.5", "-0", "1E+2",
    ]
    static let otherValues = ["null", "[]", "{}", "\"x\"", "true", "false", "\"\"", "[1,2]", "{\"a\":1}", "-1"]

    /// One seeded mutation of `base`.
    static func mutate(_ base: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            guard !bytes.isEmpty else { break }
            switch Int.random(in: 0..<7, using: &generator) {
            case 0:  // truncation
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            case 1:  // byte flips
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            case 2:  // field deletion
                let keys = keyPositions(bytes)
                guard let start = keys.randomElement(using: &generator) else { continue }
                var end = start
                var depth = 0
                while end < bytes.count {
                    let byte = bytes[end]
                    if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { depth += 1 }
                    if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                        if depth == 0 { break }
                        depth -= 1
                    }
                    if byte == UInt8(ascii: ",") && depth == 0 {
                        end += 1
                        break
                    }
                    end += 1
                }
                bytes.removeSubrange(start..<end)
            case 3:  // number blow-up
                replaceValue(
                    in: &bytes, with: hugeNumbers.randomElement(using: &generator)!, numbersOnly: true,
                    using: &generator)
            case 4:  // another type of value
                replaceValue(
                    in: &bytes, with: otherValues.randomElement(using: &generator)!, numbersOnly: false,
                    using: &generator)
            case 5:  // ids that point elsewhere or nowhere
                replaceValue(
                    in: &bytes, with: String(Int.random(in: 0...60, using: &generator)), numbersOnly: true,
                    using: &generator)
            default:  // a duplicated slice
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                let end = min(bytes.count, start + Int.random(in: 1...200, using: &generator))
                let slice = bytes[start..<end]
                bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &generator))
            }
        }
        return bytes
    }

    /// Where each `"key":` starts.
    static func keyPositions(_ bytes: [UInt8]) -> [Int] {
        var positions: [Int] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "\""), index > 0,
                bytes[index - 1] == UInt8(ascii: "{") || bytes[index - 1] == UInt8(ascii: ",")
            {
                positions.append(index)
            }
            index += 1
        }
        return positions
    }

    /// Replaces one value after a `:` (a number, when `numbersOnly`) with `text`.
    static func replaceValue(
        in bytes: inout [UInt8], with text: String, numbersOnly: Bool, using generator: inout SeededGenerator
    ) {
        var starts: [Int] = []
        for index in 1..<max(1, bytes.count) where bytes[index - 1] == UInt8(ascii: ":") {
            let byte = bytes[index]
            let isNumber = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            if isNumber || !numbersOnly { starts.append(index) }
        }
        guard let start = starts.randomElement(using: &generator) else { return }
        var end = start
        if bytes[start] == UInt8(ascii: "\"") {
            end += 1
            while end < bytes.count && bytes[end] != UInt8(ascii: "\"") { end += 1 }
            end = min(bytes.count, end + 1)
        } else {
            let stops: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
            while end < bytes.count && !stops.contains(bytes[end]) { end += 1 }
        }
        bytes.replaceSubrange(start..<end, with: Array(text.utf8))
    }

    /// Runs one mutated dump through `report` (and, when it reads, `html` and `diff`) in-process.
    /// Returns whether it was read.
    static func check(_ bytes: [UInt8], path: String, htmlPath: String, base: String, case number: Int) async -> Bool {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let loader = DumpLoader(console: ConsoleCapture().console)
        do {
            let result = try ReportCommand.run(
                path: path, format: number % 2 == 0 ? .text : .json, top: 5, loader: loader)
            #expect(!result.output.isEmpty, "case \(number)")
        } catch {
            #expect(error.description.hasPrefix(path + ": "), "case \(number): \(error)")
            #expect(!error.description.contains("\n"), "case \(number): \(error)")
            return false
        }
        do {
            _ = try HTMLCommand.write(
                dump: path, output: htmlPath, force: true, top: 5, loader: loader, renderer: .missing)
        } catch {
            Issue.record("case \(number): a dump that reports should also make a page: \(error)")
        }
        if number % 10 == 0 {
            let run = await runInProcess(["diff", base, path])
            #expect(run.status == 0 || run.status == 1, "case \(number): \(run.errors)")
        }
        return true
    }

    @Test("2,500 seeded mutations in-process: a valid report or one line naming the file")
    func mutationsInProcess() async {
        let directory = makeTemporaryDirectory("fuzz")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/mutated.json"
        let base = directory + "/base.json"
        _ = FileManager.default.createFile(atPath: base, contents: Data(Self.bases[3]))
        var generator = SeededGenerator(seed: 0x1EA6_6A9F)
        var read = 0
        let cases = 2_500
        for number in 0..<cases {
            let bytes = Self.mutate(Self.bases[number % Self.bases.count], using: &generator)
            if await Self.check(bytes, path: path, htmlPath: directory + "/page.html", base: base, case: number) {
                read += 1
            }
        }
        // Both outcomes happen: the mutations are not all fatal, nor all harmless.
        #expect(read > 50)
        #expect(read < cases - 500)
    }

    @Test("50 seeded mutations through the binary: never a crash, exit 0, 1, or 2 with one line")
    func mutationsThroughBinary() throws {
        let directory = makeTemporaryDirectory("fuzz-binary")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var generator = SeededGenerator(seed: 0xB1_0A7)
        for number in 0..<50 {
            let path = directory + "/case\(number).json"
            let bytes = Self.mutate(Self.bases[number % Self.bases.count], using: &generator)
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let run = try runBinary(["report", path], timeout: 30)
            #expect(!run.crashed, "case \(number) crashed: \(run.errors)")
            #expect([0, 1, 2].contains(run.status), "case \(number): status \(run.status)")
            if run.status == 2 {
                expectOneLineFailure(run, naming: path)
            } else {
                #expect(run.errors.isEmpty, "case \(number): \(run.errors)")
                #expect(run.output.hasPrefix(path + ": "), "case \(number)")
            }
        }
    }
}
