import CLeakGraphSupport
import Foundation
import Testing

@testable import LeakGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The symbolizer's answers kept across runs: what one process learned, the next reuses for the
/// very same image file, and never for another build of it.
@Suite("Symbol cache", .serialized)
struct SymbolCacheTests {
    static let symbolizer = ExternalSymbolizer.find("llvm-symbolizer")

    private func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "leakgraph-symbols-\(getpid())-\(UUID().uuidString)"
    }

    /// A file standing for an image: its identity is its path, size, time and inode.
    private func makeImage(in directory: String, bytes: Int = 16) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/image.so"
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An answer as `llvm-symbolizer` prints it for `address`.
    private func answer(_ address: UInt, _ line: Int) -> Substring {
        Substring(#"{"Address":"0x\#(String(address, radix: 16))","Symbol":[{"Line":\#(line)}]}"#)
    }

    private func data(_ address: UInt) -> Substring {
        Substring(#"{"Address":"0x\#(String(address, radix: 16))","Data":{"Name":"g"}}"#)
    }

    /// A cache that learned one code answer (at 0x10) for `image` and wrote it.
    private func writeOneAnswer(for image: String, in directory: String) {
        var cache = SymbolCache(directory: directory + "/symbols")
        cache.remember(image: image, kind: "CODE", offsets: [0x10], answers: [answer(0x10, 1)])
        cache.writeChanged()
    }

    @Test("answers written by one cache are read back by the next, per kind and offset; errors are not kept")
    func roundTrip() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = try makeImage(in: directory + "/images")
        var first = SymbolCache(directory: directory + "/symbols")
        first.remember(image: image, kind: "CODE", offsets: [0x10, 0x20], answers: [answer(0x10, 1), answer(0x20, 2)])
        first.remember(image: image, kind: "DATA", offsets: [0x10], answers: [data(0x10)])
        // Not kept: an error, and an answer for another address.
        first.remember(
            image: image, kind: "CODE", offsets: [0x30, 0x40],
            answers: [#"{"Address":"0x30","Error":{"Message":"no file"}}"#, answer(0x41, 4)])
        first.writeChanged()
        let second = SymbolCache(directory: directory + "/symbols")
        #expect(
            second.answers(image: image, kind: "CODE", offsets: [0x20, 0x10, 0x30, 0x40]) == [
                String(answer(0x20, 2)), String(answer(0x10, 1)), nil, nil,
            ])
        #expect(second.answers(image: image, kind: "DATA", offsets: [0x10, 0x20]) == [String(data(0x10)), nil])
    }

    @Test("answers for another build of the image, or from another symbolizer, are not used")
    func anotherBuildIsIgnored() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = try makeImage(in: directory + "/images")
        writeOneAnswer(for: image, in: directory)
        let same = SymbolCache(directory: directory + "/symbols")
        #expect(same.answers(image: image, kind: "CODE", offsets: [0x10]) == [String(answer(0x10, 1))])
        let otherTool = SymbolCache(directory: directory + "/symbols", tool: "another symbolizer")
        #expect(otherTool.answers(image: image, kind: "CODE", offsets: [0x10]) == [nil], "another tool's answers")
        _ = try makeImage(in: directory + "/images", bytes: 32)  // rebuilt
        let second = SymbolCache(directory: directory + "/symbols")
        #expect(second.answers(image: image, kind: "CODE", offsets: [0x10]) == [nil])
    }

    @Test("lines not of the cache's form, or not the answer for their offset, are skipped; the rest is used")
    func damagedLinesAreSkipped() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = try makeImage(in: directory + "/images")
        writeOneAnswer(for: image, in: directory)
        let file = SymbolCache.path(of: image, in: directory + "/symbols")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try (text + "CODE zz {}\nJUNK 20 {}\nCODE 30 not-json\nCODE 40\nCODE 50 \(answer(0x51, 5))\n").write(
            toFile: file, atomically: false, encoding: .utf8)
        let second = SymbolCache(directory: directory + "/symbols")
        #expect(
            second.answers(image: image, kind: "CODE", offsets: [0x10, 0x20, 0x30, 0x40, 0x50]) == [
                String(answer(0x10, 1)), nil, nil, nil, nil,
            ])
    }

    @Test("demangled names are kept for the same demangler, not for another version of it")
    func demangledNames() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tool = try makeImage(in: directory + "/tools")
        var first = SymbolCache(directory: directory + "/symbols")
        #expect(first.demangled(["$s1A1BV"], by: tool) == [nil])
        // Two names of one length and ending (a line is first matched by those): each its own.
        first.remember(
            demangled: ["A.B", "Alpha.B", "Betaa.B"], of: ["$s1A1BV", "$s10AlphaXXXXX1BV", "$s10BetaaXXXXX1BV"],
            by: tool)
        first.writeChanged()
        let second = SymbolCache(directory: directory + "/symbols")
        #expect(second.demangled(["$s1A1BV", "$s1A1CV"], by: tool) == ["A.B", nil])
        #expect(
            second.demangled(["$s10BetaaXXXXX1BV", "$s10GammaXXXXX1BV", "$s10AlphaXXXXX1BV"], by: tool) == [
                "Betaa.B", nil, "Alpha.B",
            ])
        _ = try makeImage(in: directory + "/tools", bytes: 64)  // another version of the tool
        let third = SymbolCache(directory: directory + "/symbols")
        #expect(third.demangled(["$s1A1BV"], by: tool) == [nil])
    }

    @Test("LEAKGRAPH_CACHE_DIR chooses the folder, and off keeps nothing")
    func folderFromTheEnvironment() {
        #expect(SymbolCache.defaultDirectory(environment: ["LEAKGRAPH_CACHE_DIR": "/c"]) == "/c/symbols")
        #expect(SymbolCache.defaultDirectory(environment: ["LEAKGRAPH_CACHE_DIR": "off"]) == nil)
        #expect(SymbolCache.defaultDirectory(environment: ["LEAKGRAPH_CACHE_DIR": ""]) == nil)
        #expect(
            SymbolCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]) == "/x/leakgraph/symbols")
        #expect(SymbolCache.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.cache/leakgraph/symbols")
        #expect(SymbolCache.defaultDirectory(environment: [:]) == nil)
        #expect(
            SymbolCache.defaultDirectory(environment: ["LEAKGRAPH_CACHE_DIR": "rel"])
                == FileManager.default.currentDirectoryPath + "/rel/symbols")
    }

    @Test(
        "a lookup the cache of an earlier run knows does not ask the tool, and answers the same",
        .enabled(if: symbolizer != nil, "needs llvm-symbolizer"))
    func knownLookupsAskNoTool() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // An exported function of the runtime library.
        let address = UInt(bitPattern: try #require(dlsym(dlopen(nil, RTLD_NOW), "swift_retain")))
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        try #require(lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0)
        let image = String(cString: try #require(path))
        let offset = address - base
        // Symbolizers of their own (the shared one serves other tests meanwhile).
        let symbolizer = ExternalSymbolizer(cacheDirectory: directory, livesAsLongAsTheProcess: false)
        let first = symbolizer.symbolize(image: image, offsets: [offset])
        #expect(symbolizer.toolBatchesAsked == 1)
        // A new process: its cache is read from the folder.
        let next = ExternalSymbolizer(cacheDirectory: directory, livesAsLongAsTheProcess: false)
        let second = next.symbolize(image: image, offsets: [offset])
        #expect(next.toolBatchesAsked == 0, "answered from the cache")
        #expect(first?.first?.first?.function != nil)
        let firstFrames = try #require(first?.first)
        let secondFrames = try #require(second?.first)
        #expect(firstFrames.map { $0.function } == secondFrames.map { $0.function })
        #expect(firstFrames.map { $0.line } == secondFrames.map { $0.line })
    }
}
