import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

/// Builds small graphs by hand: `let parent = graph.object("Parent", rc: 1)`.
struct GraphBuilder {
    var objects: [ObjectInfo] = []
    var edges: [EdgeInfo] = []
    var stacks: [StackInfo] = []

    /// Adds an object allocated at `site` (a stack with one library frame, then `site`).
    @discardableResult
    mutating func object(
        _ type: String, label: String? = nil, rc: Int? = 1, site: String? = nil, state: ObjectState = .unspecified
    ) -> UInt64 {
        let id = UInt64(objects.count + 1)
        var stack: Int?
        if let site {
            stack = stacks.count
            stacks.append(
                StackInfo(
                    id: stacks.count,
                    frames: ["\(type).init() at Sources/Lib/Lib.swift", site, "main at main.swift:1"], userFrame: 1))
        }
        objects.append(ObjectInfo(id: id, type: type, label: label, strongRetainCount: rc, stack: stack, state: state))
        return id
    }

    mutating func edge(_ from: UInt64, _ to: UInt64, _ label: String, kind: EdgeKind = .strong, closure: String? = nil)
    {
        edges.append(EdgeInfo(from: from, to: to, kind: kind, label: label, closure: closure))
    }

    var snapshot: GraphSnapshot { GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: 1_700_000_000) }

    func json(pid: Int32? = 4242) -> String { JSONExporter.render(snapshot, processID: pid) }
}

/// Sample graphs.
enum Graphs {
    /// `Parent "example"` ⇄ `Child`, nothing else holds them: leaked.
    static var leakingPair: GraphBuilder {
        var graph = GraphBuilder()
        let parent = graph.object("Parent", label: "example", site: "makePair() at Sources/App/Pair.swift:21")
        let child = graph.object("Child", site: "makePair() at Sources/App/Pair.swift:22")
        graph.edge(parent, child, "child")
        graph.edge(child, parent, "parent")
        return graph
    }

    /// The same pair with Parent held by something outside: retained.
    static var heldPair: GraphBuilder {
        var graph = leakingPair
        graph.objects[0].strongRetainCount = 2
        return graph
    }

    /// A pair with a weak back reference and a held parent: no leak.
    static var cleanPair: GraphBuilder {
        var graph = GraphBuilder()
        let parent = graph.object("Parent", site: "makePair() at Sources/App/Pair.swift:21")
        let child = graph.object("Child", site: "makePair() at Sources/App/Pair.swift:22")
        graph.edge(parent, child, "child")
        graph.edge(child, parent, "parent", kind: .weak)
        return graph
    }

    /// `ViewModel —signal→ FlatMap<Int> —capture→ ViewModel`.
    static var closureLeak: GraphBuilder {
        var graph = GraphBuilder()
        let model = graph.object("ViewModel", site: "Screen.init() at Sources/App/Screen.swift:9")
        let flatMap = graph.object("FlatMap<Int>", site: "ViewModel.bind() at Sources/App/ViewModel.swift:12")
        graph.edge(model, flatMap, "signal")
        graph.edge(flatMap, model, "capture", closure: "closure #1 in ViewModel.bind()")
        return graph
    }

    /// `Sink<Int> —disposer→ SinkDisposer —sink→ Sink<Int>`, twice, plus a disposed subscription
    /// held by a leaked one, an object with unknown owners, and a type that needs HTML escaping.
    static var mixed: GraphBuilder {
        var graph = GraphBuilder()
        for round in 0..<2 {
            let sink = graph.object("Sink<Int>", site: "Feed.start() at Sources/App/Feed.swift:\(30 + round)")
            let disposer = graph.object("SinkDisposer", site: "Observable.subscribe at Sources/Rx/Observable.swift:5")
            graph.edge(sink, disposer, "disposer")
            graph.edge(disposer, sink, "sink")
        }
        let cache = graph.object("Cache", rc: 3, site: "App.init() at Sources/App/App.swift:3")
        let box = graph.object("Box<Dictionary<String, Int>> & \"Ref\"", label: "<b>", rc: 1, state: .disposed)
        graph.edge(cache, box, "items[0]")
        return graph
    }
}

/// The folder that holds every test's files in this process; removed when the process exits, so
/// that the tests leave nothing behind.
let temporaryRoot: String = {
    let path = NSTemporaryDirectory() + "leakgraph-cli-tests-\(getpid())"
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "leakgraph-cli-tests-\(getpid())") }
    return path
}()

/// A fresh directory for one test's files (under ``temporaryRoot``).
func makeTemporaryDirectory(_ name: String = #function) -> String {
    let clean = name.filter { $0.isLetter || $0.isNumber }
    let path = temporaryRoot + "/\(clean)-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes `text` to `directory/name` and returns the path.
@discardableResult
func writeFile(_ text: String, _ name: String, in directory: String) -> String {
    let path = directory + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

/// What a run of the tool printed and returned.
struct ToolRun: Sendable {
    var status: Int32
    var output: String
    var errors: String
    /// Whether the process ended by a signal (a crash).
    var crashed = false

    /// Non-empty lines on stderr.
    var errorLines: [Substring] { errors.split(separator: "\n") }
}

/// Runs the tool in-process through the same entry point as the binary.
func runInProcess(_ arguments: [String]) async -> ToolRun {
    let capture = ConsoleCapture()
    let status = await LeakGraphCommand.execute(arguments, console: capture.console)
    return ToolRun(status: status, output: capture.output, errors: capture.errors)
}

/// The built `leakgraph` executable, next to the test bundle.
let leakgraphBinary: String? = {
    var directories: [URL] = []
    if let first = CommandLine.arguments.first {
        directories.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
    }
    directories.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
    directories.append(Bundle.main.bundleURL)
    directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for directory in directories {
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("leakgraph").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
    }
    return nil
}()

/// An example program built next to the `leakgraph` binary.
func builtExample(_ name: String) throws -> String {
    let example = try #require(
        leakgraphBinary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(name).path })
    try #require(FileManager.default.isExecutableFile(atPath: example), "\(name) is built")
    return example
}

/// Runs the built binary as a child process (killed after `timeout` seconds, which fails the
/// test: bad input must never hang).
func runBinary(
    _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 60
) throws -> ToolRun {
    let binary = try #require(leakgraphBinary, "the leakgraph executable is built next to the tests")
    return try runExecutable(binary, arguments, environment: environment, timeout: timeout)
}

/// Runs `binary` as a child process (killed after `timeout` seconds, which fails the test).
func runExecutable(
    _ binary: String, _ arguments: [String] = [], environment: [String: String]? = nil, timeout: TimeInterval = 60
) throws -> ToolRun {
    let directory = makeTemporaryDirectory("binary")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = directory + "/out"
    let errPath = directory + "/err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    let timedOut = process.isRunning
    if timedOut {
        process.terminate()
        process.waitUntilExit()
    }
    process.waitUntilExit()
    #expect(!timedOut, "\(binary) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
    let output = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
    let errors = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    return ToolRun(
        status: process.terminationStatus, output: output, errors: errors,
        crashed: process.terminationReason == .uncaughtSignal)
}

/// Checks the contract for unreadable input: exit status 2 and exactly one line on stderr,
/// `leakgraph: <path>: <problem>`.
func expectOneLineFailure(_ run: ToolRun, naming path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!run.crashed, "crashed: \(run.errors)", sourceLocation: sourceLocation)
    #expect(run.status == 2, "status \(run.status), stderr: \(run.errors)", sourceLocation: sourceLocation)
    #expect(run.errorLines.count == 1, "stderr: \(run.errors)", sourceLocation: sourceLocation)
    #expect(run.errors.hasPrefix("leakgraph: \(path): "), "stderr: \(run.errors)", sourceLocation: sourceLocation)
}
