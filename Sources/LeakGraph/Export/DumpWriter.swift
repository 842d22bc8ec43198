import CLeakGraphSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The files one dump wrote.
public struct DumpFiles: Sendable, Hashable {
    /// The JSON dump.
    public var json: String
    /// The dot graph.
    public var dot: String
    /// The SVG picture, when Graphviz was available and asked for.
    public var svg: String?
}

extension LeakGraph {
    /// Writes `leakgraph-<pid>.json` and `leakgraph-<pid>.dot` for the current graph into
    /// `directory` (created if needed), never overwriting an existing file.
    ///
    /// - Parameters:
    ///   - directory: Where to write.
    ///   - name: File name stem; defaults to `leakgraph-<pid>`.
    ///   - renderSVG: Also render an SVG with Graphviz when it is installed.
    ///   - contents: Every live object (``DumpContents/full``) or the cycles and what they hold
    ///     with a summary by type (``DumpContents/cycles``); nil reads `LEAKGRAPH_DUMP`.
    /// - Returns: The paths written, and the report (of every live object, whatever was written).
    @discardableResult
    public static func writeDump(
        to directory: String, name: String? = nil, renderSVG: Bool = false, contents: DumpContents? = nil
    ) throws(SafeFileWriter.Failure) -> (files: DumpFiles, report: LeakReport) {
        try writeDumpFiles(to: directory, name: name, renderSVG: renderSVG, contents: contents).0
    }

    /// ``writeDump(to:name:renderSVG:contents:)``, also returning what the dump holds.
    ///
    /// - Parameter keepingUntilExit: Whether the graph is kept rather than freed (at exit: freeing
    ///   a million objects' snapshot is work the exit does not need).
    static func writeDumpFiles(
        to directory: String, name: String?, renderSVG: Bool, contents: DumpContents?, keepingUntilExit: Bool = false
    ) throws(SafeFileWriter.Failure) -> ((files: DumpFiles, report: LeakReport), DumpSummary) {
        let contents = contents ?? .fromEnvironment
        // Only what is written is symbolized: the stacks of the objects and edges a cycles dump
        // keeps (a full dump: every stack).
        let (whole, report) = findLeaksToDescribe(
            stacksFor: contents == .full ? nil : { $0.stackIDsKeptByCycles(of: $1) })
        let (restricted, written) = contents == .full ? (whole, report) : whole.restrictedToCycles(of: report)
        var snapshot = restricted
        if contents != .full { snapshot.keepOnlyReferencedStacks() }
        if keepingUntilExit { DumpAtExit.keepUntilExit(whole, snapshot, written) }
        let summary = DumpSummary(
            whole, report: report, contents: contents, writtenObjects: snapshot.objects.count,
            writtenEdges: snapshot.edges.count)
        try SafeFileWriter.createDirectory(directory)
        let stem = directory + "/" + (name ?? "leakgraph-\(getpid())")
        let json = stem + ".json"
        let dot = stem + ".dot"
        // The picture is drawn on another thread while the JSON is written: a big dump's dot
        // text takes a few tenths of a second, as long as a tenth of the JSON.
        let picture = BackgroundResult { [snapshot] in DotExporter.render(snapshot, report: written) }
        do {
            try SafeFileWriter.write(to: json, overlapped: true) { file in
                JSONExporter.write(snapshot, report: written, processID: getpid(), summary: summary, to: &file)
            }
        } catch {
            _ = picture.value  // its thread ends before the failure is reported (at exit: before teardown)
            throw error
        }
        try SafeFileWriter.write(picture.value, to: dot)
        var files = DumpFiles(json: json, dot: dot, svg: nil)
        if renderSVG, Graphviz.dotExecutable != nil {
            let svg = stem + ".svg"
            if (try? Graphviz.render(dotFile: dot, to: svg)) != nil { files.svg = svg }
        }
        return ((files, report), summary)
    }

    /// Writes a dump into `directory` when the process exits normally (`exit` or returning from
    /// `main`), with a summary on stderr. The same happens when the environment variable
    /// `LEAKGRAPH_DUMP_DIR` is set, and then the variable's directory wins over `directory` (so
    /// `leakgraph run` finds the dump where it asked for it). Failures print one line on stderr
    /// and never change the exit status. Calling it again changes the directory; the dump is
    /// written once.
    public static func dumpAtExit(to directory: String) {
        DumpAtExit.arm(directory: DumpAtExit.environmentDirectory ?? directory)
    }
}

/// Registers the exit handler once and remembers the directory.
enum DumpAtExit {
    private static let directory = Locked<String?>(nil, heldAcrossFork: true)
    private static let armed = Atomic<Bool>(false)
    private static let ran = Atomic<Bool>(false)
    /// Set when an exit handler starts: arming then only records the directory (registering a
    /// handler while handlers run would be pointless).
    static let exiting = Atomic<Bool>(false)
    /// What the dump at exit made, referenced until the process ends so it is never freed.
    private static let keptUntilExit = Locked<[any Sendable]>([], heldAcrossFork: true)

    /// Keeps `values` alive until the process ends.
    static func keepUntilExit(_ values: any Sendable...) {
        keptUntilExit.withLock { $0.append(contentsOf: values) }
    }

    static func arm(directory path: String) {
        directory.withLock { $0 = path }
        if !exiting.load(ordering: .acquiring),
            armed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            _ = lg_atexit(leakGraphDumpAtExit)
        }
    }

    /// Arms from `LEAKGRAPH_DUMP_DIR` (called when the registry starts).
    static func armFromEnvironment() {
        guard let path = environmentDirectory else { return }
        // `LEAKGRAPH_DUMP_ON` without `exit` (signals only): no dump at exit.
        if lg_dump_on_events() & 1 != 0 {
            arm(directory: path)
        } else {
            directory.withLock { $0 = path }
        }
    }

    /// On-demand dumps written so far (SIGUSR1), for their names.
    static let onDemandDumps = Atomic<Int>(0)

    /// `LEAKGRAPH_DUMP_DIR`, when set and not empty.
    static var environmentDirectory: String? {
        guard let value = ProcessInfoLite.value(of: "LEAKGRAPH_DUMP_DIR"), !value.isEmpty else { return nil }
        return value
    }

    static func run() {
        guard ran.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
            let path = directory.withLock({ $0 })
        else { return }
        do {
            let ((files, report), summary) = try LeakGraph.writeDumpFiles(
                to: path, name: nil, renderSVG: false, contents: nil, keepingUntilExit: true)
            keepUntilExit(report)
            // Counted, not filtered: `leakedCycles` would copy half a million cycles to count them.
            let leakedCount = report.cycles.reduce(0) { $0 + ($1.leaked && $1.libraryLeak == nil ? 1 : 0) }
            let libraries = KnownLeaks.countsByLibrary(report.cycles)
            let retainedCount = report.cycles.reduce(0) { $0 + ($1.leaked ? 0 : 1) }
            if summary.trackingOff {
                // Said first and plainly: an empty dump from a process that tracked nothing is
                // no evidence of no leaks.
                warn(
                    "tracking was off in this process (LEAKGRAPH=off or the LeakGraphDisabled trait): "
                        + "nothing was checked; wrote \(files.json), \(files.dot)")
                return
            }
            if let problem = summary.trackingProblem {
                warn("\(problem): nothing was checked; wrote \(files.json), \(files.dot)")
                return
            }
            if summary.recordedObjects == 0 {
                warn(
                    "nothing was tracked: the program recorded no object (LEAKGRAPH_TRACK=all records every "
                        + "Swift object): nothing was checked; wrote \(files.json), \(files.dot)")
                return
            }
            // The graph's count, the one `leakgraph report` shows; whole-process tracking records
            // more (LeakGraph's own objects and those no snapshot walks).
            let live =
                ProcessTracking.isActive
                ? "\(summary.liveObjects) live object(s) (\(lg_process_record_count()) recorded process-wide)"
                : "\(summary.liveObjects) live tracked object(s)"
            let written =
                summary.contents == .full
                ? "every object"
                : "\(summary.writtenObjects) of \(summary.liveObjects) objects: the cycles and what they hold; LEAKGRAPH_DUMP=full for all"
            // A cycle only unread memory may hold is said, never folded into "retained".
            let possible =
                report.possibleLeaks.isEmpty
                ? ""
                : ", \(report.possibleLeaks.count) possible leak(s) (held only by references the graph does not show, "
                    + "reaching memory LeakGraph could not read; `leakgraph report` says where)"
            // Library leaks are counted apart: a test process's XCTest pairs are not its leaks.
            let library =
                libraries.isEmpty
                ? ""
                : ", library leaks (not in your code): "
                    + libraries.map { "\($0.count) in \($0.library)" }.joined(separator: ", ")
            let userObjects = summary.userLeakedObjects
            warn(
                "\(live), \(leakedCount) leaked cycle(s) (\(userObjects) object(s)), "
                    + "\(retainedCount) retained cycle(s)\(possible)\(library); wrote \(files.json) (\(written)), \(files.dot)"
            )
        } catch {
            warn(error.description)
        }
    }
}

/// The atexit handler: a plain global function (a closure from `main.swift` would be main-actor
/// isolated and crash when `exit` runs on another thread).
private func leakGraphDumpAtExit() {
    DumpAtExit.exiting.store(true, ordering: .releasing)
    DumpAtExit.run()
}

/// Called at exit by the handler CLeakGraphSupport registers before `main` when
/// `LEAKGRAPH_DUMP_DIR` is set (`support.c`): a program that never made a tracked object still
/// writes its dump (an empty one is an answer; no dump looked like LeakGraph was not linked in).
/// Nothing Swift runs before `main` for it. When the registry armed its own handler, whichever
/// of the two runs first writes the dump and the other finds it written.
@_cdecl("lg_swift_dump_at_exit_from_environment")
func dumpAtExitFromEnvironment() {
    DumpAtExit.exiting.store(true, ordering: .releasing)
    if let directory = DumpAtExit.environmentDirectory { DumpAtExit.arm(directory: directory) }
    DumpAtExit.run()
}

/// Called on LeakGraph's signal thread (signal_dumps.c) when a signal `LEAKGRAPH_DUMP_ON` asks
/// for arrives: SIGUSR1 writes `leakgraph-<pid>-<n>.json` (n = 1, 2, …: `leakgraph diff` of two
/// shows growth) and the process goes on; SIGTERM and SIGINT write the final dump under the name
/// `leakgraph run` looks for, then the signal takes its course.
@_cdecl("lg_swift_dump_on_signal")
func dumpOnSignal(_ signal: Int32) {
    guard let directory = DumpAtExit.environmentDirectory else { return }
    guard signal == SIGUSR1 else {
        DumpAtExit.exiting.store(true, ordering: .releasing)
        DumpAtExit.arm(directory: directory)
        DumpAtExit.run()
        return
    }
    let number = DumpAtExit.onDemandDumps.wrappingAdd(1, ordering: .relaxed).newValue
    do {
        let ((files, report), summary) = try LeakGraph.writeDumpFiles(
            to: directory, name: "leakgraph-\(getpid())-\(number)", renderSVG: false, contents: nil)
        let leaked = report.cycles.reduce(0) { $0 + ($1.leaked && $1.libraryLeak == nil ? 1 : 0) }
        warn(
            "SIGUSR1: \(summary.liveObjects) live object(s), \(leaked) leaked cycle(s) "
                + "(\(summary.userLeakedObjects) object(s)); wrote \(files.json)")
    } catch {
        warn(error.description)
    }
}
