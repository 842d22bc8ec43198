import Foundation
import LeakGraph
import LeakGraphDump
import LeakGraphTestSupport
import Testing

/// A small dump exercising every field, written by hand so that tests can break it one piece at
/// a time.
private let validDump = """
    {"format":"leakgraph","version":1,"pid":42,"time":1.5,
    "objects":[
    {"id":1,"type":"Parent","label":null,"strongRetainCount":1,"stack":0,"time":1.25,"state":"active","scope":0,"leaked":true},
    {"id":2,"type":"Child","label":"c","strongRetainCount":1,"stack":null,"time":2.5,"state":"disposed","scope":3,"leaked":true},
    {"id":3,"type":"Holder","label":null,"strongRetainCount":2,"stack":null,"time":0,"state":"unspecified","scope":0,"leaked":false}],
    "edges":[
    {"from":1,"to":2,"kind":"strong","label":"child","origin":"declared","count":1,"site":0,"closure":null},
    {"from":2,"to":1,"kind":"strong","label":"parent","origin":"reflected","count":1,"site":null,"closure":"closure #1 in Child.bind()"},
    {"from":3,"to":1,"kind":"weak","label":"watch","origin":"captured","count":2,"site":null,"closure":null}],
    "stacks":[{"id":0,"frames":["make() at Sources/App/A.swift:3","main at main.swift:1"],"userFrame":0}],
    "cycles":[{"objects":[1,2],"leaked":true,"signature":"S","path":[{"from":1,"to":2,"label":"child"},{"from":2,"to":1,"label":"parent"}],"loop":"L","unexplainedHolders":[]}],
    "unknownOwners":[{"object":3,"unexplained":2}]}
    """

private func load(_ text: String) throws(DumpError) -> LeakGraphDump {
    try LeakGraphDump(data: Data(text.utf8), path: "t.json")
}

/// The problem reading `text` reports, or nil when it loads.
private func problem(_ text: String) -> String? {
    do {
        _ = try load(text)
        return nil
    } catch {
        return error.problem
    }
}

private func problem(atPath path: String) -> String? {
    do {
        _ = try LeakGraphDump(contentsOf: path)
        return nil
    } catch {
        return error.problem
    }
}

/// `validDump` with `old` replaced by `new` (which must occur).
private func mutated(_ old: String, _ new: String) -> String {
    precondition(validDump.contains(old), "test template lacks \(old)")
    return validDump.replacingOccurrences(of: old, with: new)
}

/// This process's folder for the dump tests' files, removed when the process exits so that the
/// tests leave nothing behind.
private let temporaryFolder: String = {
    let directory = NSTemporaryDirectory() + "LeakGraphDumpTests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "LeakGraphDumpTests-\(getpid())") }
    return directory
}()

private func temporaryPath(_ name: String) -> String {
    temporaryFolder + "/" + name
}

/// A graph with every kind of field, leaked and retained cycles, and unknown owners.
private func sampleSnapshot() -> GraphSnapshot {
    let objects = [
        ObjectInfo(
            id: 10, type: "ViewModel<Généric “Ünïcode”>", label: "quote \" backslash \\ newline \n tab \t",
            strongRetainCount: 1, stack: 0, time: 1_700_000_000.123, state: .active, scope: 2),
        ObjectInfo(
            id: 11, type: "Sink", label: "nul \u{0} bell \u{7} emoji 😀 é", strongRetainCount: 1, stack: 1, time: 0.5,
            state: .disposed),
        ObjectInfo(id: 12, type: "Sink", strongRetainCount: 2, state: .completed),
        ObjectInfo(id: 13, type: "Disposer", strongRetainCount: 1, state: .errored),
        ObjectInfo(id: 14, type: "Global", strongRetainCount: 3),
        ObjectInfo(id: 15, type: "Unknown count"),
    ]
    let edges = [
        EdgeInfo(from: 10, to: 11, kind: .strong, label: "sink", origin: .declared, count: 1, site: 1),
        EdgeInfo(
            from: 11, to: 10, kind: .strong, label: "capture", origin: .captured,
            closure: "closure #1 in ViewModel.bind() — “quoted”"),
        EdgeInfo(from: 12, to: 13, kind: .strong, label: "disposer", origin: .reflected, count: 1),
        EdgeInfo(from: 13, to: 12, kind: .strong, label: "sink"),
        EdgeInfo(from: 14, to: 12, kind: .strong, label: "items[2]", count: 1),
        EdgeInfo(from: 14, to: 15, kind: .weak, label: "delegate"),
        EdgeInfo(from: 15, to: 14, kind: .unowned, label: "owner", count: 3),
        EdgeInfo(from: 15, to: 15, kind: .unknown, label: "context"),
    ]
    let stacks = [
        StackInfo(
            id: 0, frames: ["ViewModel.init() at Sources/App/ViewModel.swift:12", "main at main.swift:1"], userFrame: 0),
        StackInfo(id: 1, frames: ["bind() at \"weird\\path\".swift:3"], userFrame: nil),
    ]
    return GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: 1_700_000_001.5)
}

@Suite("LeakGraphDump")
struct LeakGraphDumpTests {
    @Test("a rendered snapshot reads back with the same objects, edges, stacks, cycles and verdicts")
    func roundTrip() throws {
        let snapshot = sampleSnapshot()
        let report = LeakDetector.analyze(snapshot)
        let text = JSONExporter.render(snapshot, report: report, processID: 4242)
        let dump = try load(text)
        #expect(dump.snapshot.objects == snapshot.objects)
        #expect(dump.snapshot.edges == snapshot.edges)
        #expect(dump.snapshot.stacks == snapshot.stacks)
        #expect(dump.snapshot.time == snapshot.time)
        #expect(dump.cycles == report.cycles)
        #expect(dump.leakedObjectIDs == report.leakedObjectIDs)
        #expect(dump.unknownOwners == report.unknownOwners)
        #expect(!dump.unknownOwners.isEmpty)
        #expect(dump.cycles.contains { !$0.leaked && !$0.unexplainedHolders.isEmpty })
        #expect(dump.processID == 4242)
    }

    @Test("the lifecycle verdicts are written and read back; an id not in objects is refused")
    func lifecycleListsRoundTrip() throws {
        let snapshot = sampleSnapshot()
        var report = LeakDetector.analyze(snapshot)
        report.neverFinished = [10]
        report.canNeverFinish = [12, 13]
        let text = JSONExporter.render(snapshot, report: report)
        #expect(text.contains(#""neverFinished":[10],"canNeverFinish":[12,13]"#))
        let dump = try load(text)
        #expect(dump.neverFinished == [10])
        #expect(dump.canNeverFinish == [12, 13])
        #expect(dump.report.canNeverFinish == [12, 13])
        let broken = text.replacingOccurrences(of: #""canNeverFinish":[12,13]"#, with: #""canNeverFinish":[12,99]"#)
        #expect(problem(broken)?.contains("canNeverFinish[1] names object 99, which is not in \"objects\"") == true)
        // Dumps written before the fields existed read as empty lists.
        let older = text.replacingOccurrences(of: #","neverFinished":[10],"canNeverFinish":[12,13]"#, with: "")
        #expect(try load(older).canNeverFinish.isEmpty)
    }

    @Test("a dump read from a file equals the same dump read from memory, and reports progress")
    func fromFile() throws {
        let path = temporaryPath("roundtrip.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = JSONExporter.render(sampleSnapshot())
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var fractions: [Double] = []
        let fromFile = try LeakGraphDump(contentsOf: path) { fractions.append($0) }
        let fromData = try load(text)
        #expect(fromFile.snapshot == fromData.snapshot)
        #expect(fromFile.cycles == fromData.cycles)
        #expect(fractions.last == 1)
    }

    @Test("the hand-written dump reads every field")
    func readsEveryField() throws {
        let dump = try load(validDump)
        #expect(dump.processID == 42)
        #expect(dump.snapshot.time == 1.5)
        #expect(
            dump.snapshot.objects[1]
                == ObjectInfo(
                    id: 2, type: "Child", label: "c", strongRetainCount: 1, time: 2.5, state: .disposed, scope: 3))
        #expect(
            dump.snapshot.edges[1]
                == EdgeInfo(
                    from: 2, to: 1, kind: .strong, label: "parent", origin: .reflected,
                    closure: "closure #1 in Child.bind()"))
        #expect(dump.snapshot.edges[2].count == 2 && dump.snapshot.edges[2].origin == .captured)
        #expect(
            dump.snapshot.stacks == [
                StackInfo(id: 0, frames: ["make() at Sources/App/A.swift:3", "main at main.swift:1"], userFrame: 0)
            ])
        #expect(dump.leakedObjectIDs == [1, 2])
        #expect(dump.cycles.map(\.loopDescription) == ["L"])
        #expect(dump.unknownOwners == [UnknownOwner(object: 3, unexplained: 2)])
    }

    @Test("a dump without cycles is analysed; one without unknown owners gets them computed")
    func missingAnalysis() throws {
        let noCycles = mutated(
            #""cycles":[{"objects":[1,2],"leaked":true,"signature":"S","path":[{"from":1,"to":2,"label":"child"},{"from":2,"to":1,"label":"parent"}],"loop":"L","unexplainedHolders":[]}],"#,
            "")
        let dump = try load(noCycles)
        #expect(dump.cycles.count == 1 && dump.cycles[0].loopDescription == "Child —parent→ Parent —child→ Child")
        #expect(dump.leakedObjectIDs == [1, 2])
        #expect(dump.unknownOwners == [UnknownOwner(object: 3, unexplained: 2)])
        let noOwners = try load(mutated(#""unknownOwners":[{"object":3,"unexplained":2}]"#, #""laterField":[]"#))
        #expect(noOwners.cycles.map(\.loopDescription) == ["L"])
        #expect(noOwners.unknownOwners == [UnknownOwner(object: 3, unexplained: 2)])
    }

    @Test("optional sections and fields may be null")
    func nullOptionals() throws {
        let text = mutated(
            #""stacks":[{"id":0,"frames":["make() at Sources/App/A.swift:3","main at main.swift:1"],"userFrame":0}]"#,
            #""stacks":null"#
        )
        .replacingOccurrences(of: #""stack":0"#, with: #""stack":null"#)
        .replacingOccurrences(of: #""site":0"#, with: #""site":null"#)
        .replacingOccurrences(of: #""unexplainedHolders":[]"#, with: #""unexplainedHolders":null"#)
        .replacingOccurrences(of: #""unknownOwners":[{"object":3,"unexplained":2}]"#, with: #""unknownOwners":null"#)
        .replacingOccurrences(of: #""count":2"#, with: #""count":null"#)
        .replacingOccurrences(of: #""pid":42,"time":1.5"#, with: #""pid":null,"time":null"#)
        let dump = try load(text)
        #expect(dump.snapshot.stacks.isEmpty && dump.processID == nil && dump.snapshot.time == 0)
        #expect(dump.snapshot.edges[2].count == 1)
        #expect(dump.cycles.map(\.loopDescription) == ["L"])
        #expect(dump.unknownOwners == [UnknownOwner(object: 3, unexplained: 2)])
        let noCycles = try load(text.replacingOccurrences(of: #""cycles":["#, with: #""cycles":null,"old":["#))
        #expect(noCycles.cycles.map(\.loopDescription) == ["Child —parent→ Parent —child→ Child"])
        #expect(
            problem(mutated("\"edges\":[\n", "\"edges\":null,\"x\":[\n"))?.contains(
                "wrong type at edges: expected an array, found null") == true)
    }

    @Test("fields in another order read the same, format and version last included")
    func fieldOrder() throws {
        let reordered =
            mutated(#"{"format":"leakgraph","version":1,"#, "{").dropLast() + #","version":1,"format":"leakgraph"}"#
        let dump = try load(String(reordered))
        #expect(dump.snapshot == (try load(validDump)).snapshot)
        // A newer version is reported as such even when sections it may have changed come first.
        let newer =
            mutated(#"{"format":"leakgraph","version":1,"#, "{").replacingOccurrences(
                of: #""type":"Child""#, with: #""type":[7]"#
            )
            .dropLast() + #","version":2,"format":"leakgraph"}"#
        #expect(problem(String(newer))?.contains("update LeakGraph") == true)
    }

    @Test("a summary reads back with its type counts; a wrong or incomplete one is refused by name")
    func summaryReadsAndIsChecked() throws {
        let summary =
            #""summary":{"contents":"cycles","liveObjects":40,"liveEdges":9,"writtenObjects":3,"writtenEdges":3,"#
            + #""types":[{"type":"Leaf","count":37,"leaked":0},{"type":"Parent","count":1,"leaked":1}]},"#
        let dump = try load(mutated(#""time":1.5,"#, #""time":1.5,"# + summary))
        let read = try #require(dump.summary)
        #expect(read.contents == "cycles")
        #expect(read.liveObjects == 40 && read.writtenObjects == 3 && read.liveEdges == 9 && read.writtenEdges == 3)
        #expect(!read.isComplete)
        #expect(read.types.map(\.type) == ["Leaf", "Parent"])
        #expect(read.types.first?.count == 37 && read.types.last?.leaked == 1)
        #expect(!read.trackingOff)  // absent: written before the field existed
        #expect(try load(validDump).summary == nil)
        let off = summary.replacingOccurrences(of: "]},", with: #"],"trackingOff":true},"#)
        #expect(try load(mutated(#""time":1.5,"#, #""time":1.5,"# + off)).summary?.trackingOff == true)

        let wrongContents = summary.replacingOccurrences(of: #""cycles""#, with: #""some""#)
        #expect(
            problem(mutated(#""time":1.5,"#, #""time":1.5,"# + wrongContents))?.contains("summary.contents") == true)
        let missingCount = summary.replacingOccurrences(of: #""liveEdges":9,"#, with: "")
        #expect(problem(mutated(#""time":1.5,"#, #""time":1.5,"# + missingCount))?.contains("liveEdges") == true)
        let negative = summary.replacingOccurrences(of: #""liveObjects":40"#, with: #""liveObjects":-2"#)
        #expect(problem(mutated(#""time":1.5,"#, #""time":1.5,"# + negative))?.contains("liveObjects") == true)
    }

    @Test("unknown fields of any type are skipped at every level")
    func unknownFieldsIgnored() throws {
        let extra = #"{"a":[1,-2.5e3,true,false,null,"s\"x\u00e9",{"b":[],"c":{}}],"d":0}"#
        // Every `{` in the template starts an object, so this adds a field to each one.
        let text = validDump.replacingOccurrences(of: "{", with: "{\"zzzNewField\":\(extra),")
        let dump = try load(text)
        let plain = try load(validDump)
        #expect(dump.snapshot == plain.snapshot)
        #expect(dump.cycles == plain.cycles)
        #expect(dump.unknownOwners == plain.unknownOwners)
        // At the end of objects too, and with whitespace everywhere.
        // (Colons inside frames change too, so only objects and edges compare.)
        let spaced = try load(
            validDump.replacingOccurrences(of: "}", with: " ,\"new\" : [ ] \n\t}").replacingOccurrences(
                of: ":", with: " : "))
        #expect(spaced.snapshot.objects == plain.snapshot.objects)
        #expect(spaced.snapshot.edges == plain.snapshot.edges)
    }

    @Test("strings with escapes, \\u escapes, surrogate pairs and raw UTF-8 decode exactly")
    func stringEscapes() throws {
        let text = mutated(
            #""type":"Child""#, #""type":"q\" b\\ s\/ \b\f\n\r\t \u00e9\u00E9 \ud83d\ude00 raw é😀 \u0000 \u2014""#)
        let dump = try load(text)
        #expect(dump.snapshot.objects[1].type == "q\" b\\ s/ \u{8}\u{c}\n\r\t éé 😀 raw é😀 \u{0} —")
        // Long repeated strings are shared but must still be equal to what was written.
        let long = "Observable<Array<Dictionary<String, Int>>>.Type"
        let repeated = mutated(#""type":"Parent""#, "\"type\":\"\(long)\"").replacingOccurrences(
            of: #""type":"Holder""#, with: "\"type\":\"\(long)\"")
        let shared = try load(repeated)
        #expect(shared.snapshot.objects[0].type == long && shared.snapshot.objects[2].type == long)
    }

    @Test(
        "broken strings are refused",
        arguments: [
            (#""\ud83d x""#, "unpaired UTF-16 surrogate"),
            (#""\ude00""#, "unpaired UTF-16 surrogate"),
            (#""\ud83d\u0041""#, "unpaired UTF-16 surrogate"),
            (#""\x""#, "invalid escape"),
            (#""\u12G4""#, "hexadecimal digits"),
            ("\"tab\tinside\"", "control character"),
        ])
    func brokenStrings(literal: String, expected: String) {
        let found = problem(mutated(#""Child""#, literal))
        #expect(found?.contains(expected) == true, "\(found ?? "loaded")")
        #expect(found?.hasPrefix("not valid JSON at byte") == true)
    }

    @Test("invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        var bytes = Array(validDump.utf8)
        let range = validDump.utf8.firstRange(of: "Child".utf8)!
        let start = validDump.utf8.distance(from: validDump.utf8.startIndex, to: range.lowerBound)
        bytes[start] = 0xFF
        do {
            _ = try LeakGraphDump(data: Data(bytes), path: "t.json")
            Issue.record("loaded")
        } catch {
            #expect(error.problem.contains("invalid UTF-8"))
        }
    }

    @Test(
        "each invalid dump is refused with a one-line problem naming the place",
        arguments: [
            (#""format":"leakgraph""#, #""format":"other""#, #"has format "other", expected "leakgraph""#),
            (#""version":1"#, #""version":2"#, "is dump version 2, newer than this tool reads (1); update LeakGraph"),
            (#""version":1"#, #""version":0"#, "has invalid version 0"),
            (#""version":1"#, #""version":"1""#, "wrong type at version: expected an integer, found a string"),
            (#""format":"leakgraph","#, "", #"missing field "format""#),
            (#""version":1,"#, "", #"missing field "version""#),
            ("\"objects\":[\n", "\"objectz\":[\n", #"missing field "objects""#),
            (#""edges":["#, #""edgez":["#, #"missing field "edges""#),
            (#""pid":42"#, #""pid":42,"pid":43"#, #"field "pid" appears twice"#),
            (#""type":"Child","#, "", "missing required field objects[1].type"),
            (#"{"id":3,"#, "{", "missing required field objects[2].id"),
            (#""from":3,"#, "", "missing required field edges[2].from"),
            (#""kind":"weak","#, "", "missing required field edges[2].kind"),
            (
                #""frames":["make() at Sources/App/A.swift:3","main at main.swift:1"],"#, "",
                "missing required field stacks[0].frames"
            ),
            (#""signature":"S","#, "", "missing required field cycles[0].signature"),
            (
                #"{"from":2,"to":1,"label":"parent"}"#, #"{"from":2,"to":1}"#,
                "missing required field cycles[0].path[1].label"
            ),
            (#""unexplained":2"#, #""unexplaineds":2"#, "missing required field unknownOwners[0].unexplained"),
            (
                #""type":"Child""#, #""type":5"#,
                "wrong type at objects[1].type: expected a string, found a number (byte "
            ),
            (#""label":"c""#, #""label":true"#, "wrong type at objects[1].label: expected a string, found a boolean"),
            (
                #""leaked":false"#, #""leaked":"no""#,
                "wrong type at objects[2].leaked: expected a boolean, found a string"
            ),
            (
                "\"objects\":[\n{\"id\":1", "\"objects\":{\"a\":[\n{\"id\":1",
                "wrong type at objects: expected an array, found an object"
            ),
            (#""time":2.5"#, #""time":"soon""#, "wrong type at objects[1].time: expected a number, found a string"),
            (#""count":2"#, #""count":2.5"#, "wrong type at edges[2].count: expected an integer, found a fraction"),
            (
                #""objects":[1,2]"#, #""objects":[1,null]"#,
                "wrong type at cycles[0].objects[1]: expected an integer, found null"
            ),
            (#"{"id":2,"#, #"{"id":1,"#, "lists object id 1 twice"),
            (
                #""from":2,"to":1,"kind""#, #""from":2,"to":9,"kind""#,
                #"edges[1].to names object 9, which is not in "objects""#
            ),
            (#""from":1,"to":2,"kind""#, #""from":8,"to":2,"kind""#, "edges[0].from names object 8"),
            (#""objects":[1,2]"#, #""objects":[1,7]"#, "cycles[0].objects[1] names object 7"),
            (
                #"{"from":2,"to":1,"label":"parent"}"#, #"{"from":2,"to":8,"label":"parent"}"#,
                "cycles[0].path[1].to names object 8"
            ),
            (
                #""unexplainedHolders":[]"#, #""unexplainedHolders":[{"object":5,"unexplained":1,"knownHolders":[]}]"#,
                "cycles[0].unexplainedHolders[0].object names object 5"
            ),
            (
                #""unexplainedHolders":[]"#,
                #""unexplainedHolders":[{"object":1,"unexplained":1,"knownHolders":[3,6]}]"#,
                "cycles[0].unexplainedHolders[0].knownHolders[1] names object 6"
            ),
            (
                #""unexplainedHolders":[]"#, #""unexplainedHolders":[{"object":1,"unexplained":-1,"knownHolders":[]}]"#,
                "cycles[0].unexplainedHolders[0].unexplained is -1"
            ),
            (
                #""unknownOwners":[{"object":3"#, #""unknownOwners":[{"object":4"#,
                "unknownOwners[0].object names object 4"
            ),
            (#""unexplained":2"#, #""unexplained":0"#, "unknownOwners[0].unexplained is 0, expected at least 1"),
            (#""stack":0"#, #""stack":3"#, #"objects[0].stack names stack 3, which is not in "stacks""#),
            (#""site":0"#, #""site":2"#, "edges[0].site names stack 2"),
            (#""userFrame":0"#, #""userFrame":-1"#, "stacks[0].userFrame is -1, outside its 2 frame(s)"),
            (#""userFrame":0"#, #""userFrame":2"#, "stacks[0].userFrame is 2, outside its 2 frame(s)"),
            (#"],"userFrame":0}]"#, #"],"userFrame":0},{"id":0,"frames":[]}]"#, "lists stack id 0 twice"),
            (
                #""strongRetainCount":2"#, #""strongRetainCount":-1"#,
                "objects[2].strongRetainCount is -1, outside 0…1099511627776"
            ),
            (
                #""strongRetainCount":2"#, #""strongRetainCount":1099511627777"#,
                "objects[2].strongRetainCount is 1099511627777"
            ),
            (#""count":2"#, #""count":0"#, "edges[2].count is 0, expected at least 1"),
            (#""count":2"#, #""count":-5"#, "edges[2].count is -5, expected at least 1"),
            (
                #""kind":"weak""#, #""kind":"mighty""#,
                #"edges[2].kind is "mighty", expected strong, weak, unowned or unknown"#
            ),
            (#"{"id":3,"#, #"{"id":9223372036854775808,"#, "number out of range at byte "),
            (#"{"id":3,"#, #"{"id":-3,"#, "wrong type at objects[2].id: expected an id, found a negative number"),
            (#""scope":3"#, #""scope":4294967296"#, "number out of range at byte "),
            (#""pid":42"#, #""pid":2147483648"#, "number out of range at byte "),
            (#""time":2.5"#, #""time":1e400"#, "number out of range at byte "),
            (#""count":2"#, #""count":99999999999999999999999"#, "number out of range at byte "),
            (#"},"#, "}", "not valid JSON at byte "),
            (#"1,"#, "1 ", "expected ',' or '}'"),
            (#"[1,2]"#, "[1 2]", "expected ',' or ']'"),
            (#"[1,2]"#, "[1,2,]", "expected a value"),
            (#""pid":42"#, #""pid":042"#, "leading zero"),
            (#""pid":42"#, #""pid":-"#, "expected a digit"),
            (#""leaked":true"#, #""leaked":tru"#, "expected 'true'"),
            (#""label":null"#, #""label":nul"#, "expected 'null'"),
            (#""pid":42"#, #""pid" 42"#, "expected ':'"),
            (#""pid":42"#, #"pid:42"#, "expected a string key"),
        ])
    func invalidDumps(old: String, new: String, expected: String) {
        let found = problem(mutated(old, new))
        #expect(found?.contains(expected) == true, "\(found ?? "loaded")")
        #expect(found?.contains("\n") == false)
    }

    @Test("messages name the field for wrong types and out-of-range numbers")
    func messagesNameTheField() {
        #expect(
            problem(mutated(#"{"id":3,"#, #"{"id":9223372036854775808,"#))?.hasSuffix("(objects[2].id)") == true)
        #expect(problem(mutated(#""scope":3"#, #""scope":4294967296"#))?.hasSuffix("(objects[1].scope)") == true)
        #expect(
            problem(mutated(#""objects":[1,2]"#, #""objects":[1,99999999999999999999]"#))?.hasSuffix(
                "(cycles[0].objects[1])") == true)
    }

    @Test("ids up to Int64.max are accepted")
    func largestID() throws {
        let text = validDump.replacingOccurrences(of: #""id":3,"#, with: #""id":9223372036854775807,"#)
            .replacingOccurrences(of: #""from":3,"#, with: #""from":9223372036854775807,"#)
            .replacingOccurrences(of: #""object":3,"#, with: #""object":9223372036854775807,"#)
        let dump = try load(text)
        #expect(dump.snapshot.objects.last?.id == UInt64(Int64.max))
        #expect(dump.unknownOwners.first?.object == UInt64(Int64.max))
    }

    @Test(
        "inputs that are not dumps are refused with a one-line reason",
        arguments: [
            ("", "is empty"),
            ("hello", "not valid JSON at byte 0: expected a value"),
            ("[1,2]", "is not a LeakGraph JSON dump: the top level is not a JSON object"),
            ("\"leakgraph\"", "is not a LeakGraph JSON dump"),
            ("{", "not valid JSON at byte 1: unexpected end of data (truncated?)"),
            ("{} {}", "unexpected data after the end"),
            ("{}", #"missing field "format""#),
            (#"{"format":"leakgraph","version":1}"#, #"missing field "objects""#),
            (#"{"format":"leakgraph","version":1,"objects":[],"edges":[]}"#, ""),
        ])
    func notDumps(text: String, expected: String) {
        let found = problem(text)
        if expected.isEmpty {
            #expect(found == nil)
        } else {
            #expect(found?.contains(expected) == true, "\(found ?? "loaded")")
        }
    }

    @Test("a truncated dump is refused at every length")
    func truncated() {
        let bytes = Array(validDump.utf8)
        for length in 0..<bytes.count {
            do {
                _ = try LeakGraphDump(data: Data(bytes[0..<length]), path: "t.json")
                Issue.record("a dump cut at \(length) bytes loaded")
            } catch {
                #expect(!error.problem.contains("\n"))
            }
        }
    }

    @Test("nesting bombs in unknown fields are refused without overflowing the stack")
    func nestingBomb() {
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let found = problem(mutated(#""pid":42"#, #""pid":42,"bomb":"# + deep))
        #expect(found?.contains("nested deeper than 64 levels") == true, "\(found ?? "loaded")")
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(problem(mutated(#""pid":42"#, #""pid":42,"bomb":"# + objects))?.contains("nested deeper") == true)
        let fine = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(problem(mutated(#""pid":42"#, #""pid":42,"fine":"# + fine)) == nil)
    }

    @Test("a directory, a device, a FIFO, a missing and an empty file are refused before reading")
    func notRegularFiles() throws {
        let directory = temporaryPath("")
        #expect(problem(atPath: directory) == "is a directory, not a dump file")
        #expect(problem(atPath: "/dev/zero") == "is not a regular file")
        let fifo = temporaryPath("fifo")
        unlink(fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        #expect(problem(atPath: fifo) == "is not a regular file")
        #expect(problem(atPath: temporaryPath("missing.json")) == "no such file")
        let empty = temporaryPath("empty.json")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(problem(atPath: empty) == "is empty")
        do {
            _ = try LeakGraphDump(contentsOf: empty)
        } catch {
            #expect(error.description == "\(empty): is empty")
        }
    }

    @Test("thousands of seeded mutations never crash: each loads consistently or throws DumpError")
    func fuzz() {
        var generator = SeededGenerator(seed: 0x1EA6_6A9B)
        let seeds = [Array(validDump.utf8), Array(JSONExporter.render(sampleSnapshot(), processID: 7).utf8)]
        let huge = [
            "99999999999999999999999", "9223372036854775808", "-9223372036854775809", "1e400", "-0", "1.5",
            "4294967296",
        ]
        var loaded = 0
        for _ in 0..<4000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                let length = Int.random(in: 0...min(40, bytes.count - at), using: &generator)
                switch Int.random(in: 0..<7, using: &generator) {
                case 0: bytes.removeSubrange(at...)
                case 1: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 2: bytes[at] = Array("{}[],:\"\\0-e.tfn ".utf8).randomElement(using: &generator)!
                case 3: bytes.removeSubrange(at..<(at + length))
                case 4: bytes.insert(contentsOf: Array(bytes[at..<(at + length)]), at: at)
                case 5:
                    // Replace the run of digits at or after `at` with a huge or odd number.
                    guard let start = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) else { break }
                    let end = bytes[start...].firstIndex { !(0x30...0x39).contains($0) } ?? bytes.endIndex
                    bytes.replaceSubrange(start..<end, with: Array(huge.randomElement(using: &generator)!.utf8))
                default: bytes.insert(contentsOf: Array(#","x":[{"y":"\u00e9"}]"#.utf8), at: at)
                }
            }
            do {
                let dump = try LeakGraphDump(data: Data(bytes), path: "fuzz.json")
                loaded += 1
                // Whatever loads must be consistent.
                for edge in dump.snapshot.edges {
                    #expect(dump.snapshot.object(edge.from) != nil && dump.snapshot.object(edge.to) != nil)
                    #expect(edge.count >= 1)
                }
                for stack in dump.snapshot.stacks {
                    if let frame = stack.userFrame { #expect(frame >= 0 && frame < stack.frames.count) }
                }
            } catch {
                #expect(!error.problem.isEmpty && !error.problem.contains("\n"), "\(error.problem)")
            }
        }
        // Unknown fields, whitespace and some byte flips in strings keep a dump valid.
        #expect(loaded > 0)
    }
}
