import Foundation
import LeakGraph
import LeakGraphDump
import Testing

/// A library `dlclose`d while objects of its types live: the dump at exit meets objects whose
/// metadata (and code) are gone. Runs `unload-example` on a library compiled here with `swiftc`.
@Suite("Unloaded code")
struct UnloadedCodeTests {
    static let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    static let swiftc: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (paths + ["/usr/bin"]).map { $0 + "/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// A library whose objects hold themselves (a cycle) and outlive it.
    static let librarySource = """
        public final class PluginObject { var peer: AnyObject?; var items: [Int] = [1, 2, 3]; public init() {} }
        @_cdecl("make_object")
        public func makeObject() -> UnsafeMutableRawPointer {
            let object = PluginObject()
            object.peer = object
            return UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }
        """

    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws
        -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test(
        "a dump at exit after the library of live objects was unloaded: no crash, the objects said unloaded",
        .enabled(if: swiftc != nil, "needs swiftc to build the library"))
    func dumpAfterUnload() throws {
        let directory = NSTemporaryDirectory() + "leakgraph-unload-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = directory + "/plugin.swift"
        try Self.librarySource.write(toFile: source, atomically: true, encoding: .utf8)
        let library = directory + "/libunloadplugin.so"
        let built = try Self.run(
            try #require(Self.swiftc), ["-emit-library", source, "-o", library, "-module-name", "UnloadPlugin"])
        try #require(built.status == 0, "swiftc: \(built.errors)")
        let dumps = directory + "/dumps"
        let result = try Self.run(
            Self.binaries.appendingPathComponent("unload-example").path, [library],
            environment: ["LEAKGRAPH_TRACK": "all", "LEAKGRAPH_DUMP_DIR": dumps, "LEAKGRAPH_DUMP": "full"])
        #expect(result.status == 0, "\(result.errors.suffix(2000))")
        #expect(result.output.contains("made 3 objects; library unloaded: true"), "\(result.output)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dumps)) ?? []
        let json = try #require(files.first { $0.hasSuffix(".json") }, "a dump: \(result.errors.suffix(2000))")
        let dump = try LeakGraphDump(contentsOf: dumps + "/" + json)
        let unloaded = dump.snapshot.objects.filter { $0.type == "(type unloaded with its library)" }
        #expect(unloaded.count == 3)
        #expect(unloaded.allSatisfy { object in dump.snapshot.unreadReferences.contains { $0.object == object.id } })
    }
}
