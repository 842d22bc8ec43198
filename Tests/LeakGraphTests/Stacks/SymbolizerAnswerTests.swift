import Testing

@testable import LeakGraph

/// The symbolizer's JSON answers read from their bytes give what a full JSON parse gives, and a
/// line this reader does not take is left to the full parse.
struct SymbolizerAnswerTests {
    @Test("inlined frames, innermost first, with files, lines and start lines; ?? and 0 are unknown")
    func inlinedFrames() throws {
        let line = #"""
            {"Address":"0x1a2b","ModuleName":"/b/App","Symbol":[{"Column":9,"Discriminator":0,"FileName":"/src/A.swift","FunctionName":"$s3App1fyyF","Line":12,"StartAddress":"0x1a00","StartFileName":"/src/A.swift","StartLine":10},{"Column":0,"Discriminator":0,"FileName":"??","FunctionName":"main","Line":0,"StartAddress":"","StartFileName":"","StartLine":0}]}
            """#
        let frames = try #require(SymbolizerAnswer.frames(line[...]))
        #expect(frames.count == 2)
        #expect(frames[0].function == "$s3App1fyyF")
        #expect(frames[0].file == "/src/A.swift")
        #expect(frames[0].line == 12)
        #expect(frames[0].startLine == 10)
        #expect(frames[1].function == "main")
        #expect(frames[1].file == nil)
        #expect(frames[1].line == 0)
        #expect(frames[1].startLine == nil)
        let full = ExternalSymbolizer.parseJSONFrames(line[...])
        #expect(full.map(\.function) == frames.map(\.function))
    }

    @Test("escaped quotes and backslashes, and UTF-8 as it is, in a path")
    func escapes() throws {
        let line = #"{"Address":"0x10","Symbol":[{"FileName":"/src/caf\u00e9.swift","FunctionName":"f","Line":1}]}"#
        // A \u escape is not this reader's: the full parse reads it.
        #expect(SymbolizerAnswer.frames(line[...]) == nil)
        #expect(ExternalSymbolizer.parseJSONFrames(line[...]).first?.file == "/src/café.swift")
        let plain =
            #"{"Address":"0x10","Symbol":[{"FileName":"/src/a \"b\"\\café.swift","FunctionName":"f","Line":1}]}"#
        #expect(try #require(SymbolizerAnswer.frames(plain[...])).first?.file == #"/src/a "b"\café.swift"#)
    }

    @Test("an error or no frames: no frames; a malformed line: not read")
    func errorsAndMalformedLines() {
        let error = #"{"Address":"0x10","Error":{"Message":"No such file"},"ModuleName":"/x"}"#
        #expect(SymbolizerAnswer.frames(error[...])?.isEmpty == true)
        #expect(ExternalSymbolizer.parseJSONFrames(error[...]).count == 1)
        #expect(ExternalSymbolizer.parseJSONFrames(error[...])[0].function == nil)
        #expect(SymbolizerAnswer.frames(#"{"Address":"0x10","Symbol":[]}"#[...])?.isEmpty == true)
        // Values it does not want, of every kind, are skipped.
        let skipped = #"{"A":[1,-2.5e+3,true,false,null,{"b":"c"}],"Symbol":[{"X":null,"FunctionName":"f","Line":3}]}"#
        #expect(SymbolizerAnswer.frames(skipped[...])?.first?.function == "f")
        for malformed in [
            #"{"Address":"0x10","Symbol":[{"FunctionName":"f"}"#, #"{"Symbol":[{"Line":1.5}]}"#, "", "[]",
            #"{"Symbol":[{"FunctionName":"f"}]} trailing"#,
            // Not JSON, or not what the tool prints: a bare word, a lone sign, two frame lists.
            #"{"X":truefalse,"Symbol":[{"FunctionName":"f"}]}"#, #"{"X":-,"Symbol":[]}"#,
            #"{"Symbol":[{"FunctionName":"f"}],"Symbol":[{"FunctionName":"g"}]}"#,
        ] {
            #expect(SymbolizerAnswer.frames(malformed[...]) == nil, "\(malformed)")
        }
    }
}
