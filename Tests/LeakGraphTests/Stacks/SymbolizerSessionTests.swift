import CLeakGraphSupport
import Foundation
import Testing

@testable import LeakGraph

#if canImport(Glibc)
    import Glibc
#endif

@Suite("One llvm-symbolizer per job")
struct SymbolizerSessionTests {
    static let symbolizer = ExternalSymbolizer.find("llvm-symbolizer")

    /// The image and offset of the exported function `name`.
    private func located(_ name: String) throws -> (image: String, offset: UInt) {
        let address = try #require(dlsym(dlopen(nil, RTLD_NOW), name)).address
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        #expect(lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0)
        return (String(cString: try #require(path)), address - base)
    }

    private func functionName(_ line: Substring) -> String? {
        ExternalSymbolizer.parseJSONFrames(line).last?.function
    }

    @Test(
        "one tool answers several batches for several images, then ends when asked",
        .enabled(if: symbolizer != nil, "needs llvm-symbolizer"))
    func oneToolForManyBatches() throws {
        var session = try #require(
            SymbolizerSession(path: Self.symbolizer!, arguments: ["--no-demangle", "--inlines", "--output-style=JSON"]))
        let retain = try located("swift_retain")
        let allocate = try located("malloc")
        let firstAnswers = session.ask(
            ["CODE \"\(retain.image)\" 0x\(String(retain.offset, radix: 16))"], deadline: Date() + 20)
        let first = try #require(firstAnswers)
        #expect(first.count == 1)
        #expect(functionName(first[0]) == "swift_retain")
        // Another image, two lines, the same process.
        let secondAnswers = session.ask(
            [
                "CODE \"\(allocate.image)\" 0x\(String(allocate.offset, radix: 16))",
                "CODE \"\(retain.image)\" 0x\(String(retain.offset, radix: 16))",
            ], deadline: Date() + 20)
        let second = try #require(secondAnswers)
        #expect(
            second.map(functionName) == ["malloc", "swift_retain"]
                || second.map(functionName) == ["__libc_malloc", "swift_retain"])
        let pid = session.processID
        #expect(kill(pid, 0) == 0)
        session.end()
        #expect(kill(pid, 0) == -1, "the tool was ended and waited for")
    }

    @Test(
        "a tool that died is said (nil), never waited for",
        .enabled(if: symbolizer != nil, "needs llvm-symbolizer"))
    func deadTool() throws {
        var session = try #require(
            SymbolizerSession(path: Self.symbolizer!, arguments: ["--no-demangle", "--output-style=JSON"]))
        kill(session.processID, SIGKILL)
        let started = Date()
        let retain = try located("swift_retain")
        let answers = session.ask(
            ["CODE \"\(retain.image)\" 0x\(String(retain.offset, radix: 16))"], deadline: Date() + 20)
        #expect(answers == nil)
        #expect(Date().timeIntervalSince(started) < 10)
        session.end()
    }

    @Test(
        "a job's lookups all go to the one tool the job started",
        .enabled(if: symbolizer != nil, "needs llvm-symbolizer"))
    func jobSharesOneTool() throws {
        let retain = try located("swift_retain")
        let release = try located("swift_release")
        // No cache: every lookup goes to the tool.
        let symbolizer = ExternalSymbolizer(cacheDirectory: nil)
        symbolizer.withSession {
            let first = symbolizer.symbolize(image: retain.image, offsets: [retain.offset])
            let tool = symbolizer.runningToolID
            let second = symbolizer.symbolize(image: release.image, offsets: [release.offset])
            #expect(first?.first?.last?.function == "swift_retain")
            #expect(second?.first?.last?.function == "swift_release")
            #expect(tool != nil)
            #expect(symbolizer.runningToolID == tool)
        }
        #expect(symbolizer.toolBatchesAsked == 2)
    }

    @Test("image paths a request line cannot carry are refused (the caller runs the tool with --obj)")
    func unnameableImages() {
        #expect(SymbolizerSession.canName("/work/app/.build/debug/App"))
        #expect(!SymbolizerSession.canName("/tmp/a\"b/App"))
        #expect(!SymbolizerSession.canName("/tmp/a\nb/App"))
    }
}

extension UnsafeMutableRawPointer {
    fileprivate var address: UInt { UInt(bitPattern: self) }
}
