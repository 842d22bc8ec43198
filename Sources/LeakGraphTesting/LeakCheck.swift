import Foundation
import LeakGraph
import Synchronization

/// What a failed leak check found.
public struct LeakFindings: Sendable {
    /// The objects allocated in the checked region that are still alive.
    public var objects: [ObjectInfo]
    /// The leak trace: cycles with edge labels, allocation sites, fixes, unknown owners, files.
    public var message: String
    /// The dot file written for the region, and the SVG when Graphviz is installed.
    public var artifacts: [String]
    /// The analysis, restricted to nothing: use it with ``objects``.
    public var report: LeakReport
    /// Where in the user's code to report the failure when the framework cannot name the test's
    /// own line (XCTest): the allocation site of a leaked object in a test file, else in user code.
    public var userLocation: SourceLine?
}

/// A file and line in the user's code.
public struct SourceLine: Sendable, Hashable {
    /// The file, absolute when it could be made so.
    public var file: String
    /// The line.
    public var line: Int

    init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// Parses the end of a symbolicated frame: `function at path/File.swift:12` (for stacks
    /// without addresses; a relative path is taken from the working directory).
    init?(frame: String) {
        let parts = frame.split(separator: " at ", omittingEmptySubsequences: false)
        guard parts.count >= 2, let location = parts.last, let colon = location.lastIndex(of: ":"),
            let line = Int(location[location.index(after: colon)...]), line > 0
        else { return nil }
        var file = String(location[..<colon])
        if !file.hasPrefix("/") { file = FileManager.default.currentDirectoryPath + "/" + file }
        self.file = file
        self.line = line
    }
}

/// What a leak check found: the failure, if any, and what it could not check or attribute.
public struct LeakCheckOutcome: Sendable {
    /// The test's leaks: nil when nothing it allocated is still alive.
    public var findings: LeakFindings?
    /// Things to say without failing: that tracking is off and nothing was checked, or leaked
    /// objects allocated outside the test's task that could not be blamed on it with certainty.
    public var notes: [String]

    /// An outcome with `findings` (nil when nothing leaked) and `notes`.
    public init(findings: LeakFindings?, notes: [String]) {
        self.findings = findings
        self.notes = notes
    }
}

/// The engine behind every check in LeakGraphTesting: which tracked objects allocated in a
/// region are still alive once the grace period has passed, and why.
///
/// Objects the region's own task tree allocated are its own. Objects allocated outside every
/// checked region's task tree (a `DispatchQueue` block, a `Thread`, `Task.detached`) are blamed on
/// the region when it was the only one running (with ``LeakCheckOptions/includesUnscopedObjects``)
/// and otherwise reported in ``LeakCheckOutcome/notes`` when they leak: never silently ignored.
public enum LeakCheck {
    /// Checks the objects allocated in `scope`.
    ///
    /// - Returns: nil when nothing leaked.
    public static func check(scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()) async
        -> LeakFindings?
    {
        await run(scope: scope, name: name, options: options).findings
    }

    /// Checks the objects allocated in `scope`, waiting up to the grace period for them to die.
    public static func run(scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()) async
        -> LeakCheckOutcome
    {
        let deadline = ContinuousClock.now + options.gracePeriod
        var survivors = surviving(scope: scope, options: options)
        while !survivors.isEmpty && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            survivors = surviving(scope: scope, options: options)
        }
        survivors.processWide = ProcessTracking.liveObjectIDs(in: scope)
        return outcome(survivors, name: name, options: options)
    }

    /// Synchronous check for XCTest (waits with `Thread.sleep`).
    public static func checkSynchronously(
        scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()
    ) -> LeakFindings? {
        runSynchronously(scope: scope, name: name, options: options).findings
    }

    /// Synchronous form of ``run(scope:name:options:)`` for XCTest (waits with `Thread.sleep`).
    public static func runSynchronously(
        scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()
    ) -> LeakCheckOutcome {
        let deadline = ContinuousClock.now + options.gracePeriod
        var survivors = surviving(scope: scope, options: options)
        while !survivors.isEmpty && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            survivors = surviving(scope: scope, options: options)
        }
        survivors.processWide = ProcessTracking.liveObjectIDs(in: scope)
        return outcome(survivors, name: name, options: options)
    }

    /// Said once per process when tracking is off, by whichever check runs first.
    public static let notCheckedMessage =
        "LeakGraph tracking is off (LEAKGRAPH=off, or the LeakGraphDisabled trait): leak checks in this run "
        + "check nothing."
    private static let saidNotChecked = Atomic<Bool>(false)

    /// ``notCheckedMessage`` the first time it is asked while tracking is off, else nil.
    public static func notCheckedNoticeOnce() -> String? {
        guard !LeakGraph.isEnabled else { return nil }
        return saidNotChecked.exchange(true, ordering: .relaxed) ? nil : notCheckedMessage
    }

    /// Unattributed objects already reported by some check, so that overlapping tests do not
    /// each report the same ones.
    static let reportedUnattributed = Locked<Set<UInt64>>([])
    /// Unattributed objects some check already looked at (leaked or not).
    static let examinedUnattributed = Locked<Set<UInt64>>([])

    /// A region's survivors: its own, and those allocated outside every region's task while it ran.
    struct Survivors {
        var own: Set<UInt64> = []
        var offTask: Set<UInt64> = []
        /// Objects whole-process tracking recorded in the region (not tracked objects): they fail
        /// the check only when they leak. One that is merely alive is most often a lazily made
        /// global or a cache entry the region happened to create first; and they are not waited
        /// for (a leak cannot go away by waiting).
        var processWide: Set<UInt64> = []
        var isEmpty: Bool { own.isEmpty && offTask.isEmpty }
    }

    private static func surviving(scope: LeakScope, options: LeakCheckOptions) -> Survivors {
        // Declared edges only: cheap, and enough to know who is alive.
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        let end = scope.endCheckpoint?.nextObjectID ?? .max
        let alone = LeakScope.offTaskScopeID(for: scope.id)
        var survivors = Survivors()
        for object in snapshot.objects where object.id >= scope.checkpoint.nextObjectID {
            guard !options.ignores(type: object.type, label: object.label) else { continue }
            if object.scope == scope.id {
                survivors.own.insert(object.id)
            } else if object.id < end
                && (object.scope == alone || object.scope == LeakScope.unattributedScopeID
                    || (object.scope == 0 && scope.ranAlone))
            {
                survivors.offTask.insert(object.id)
            }
        }
        return survivors
    }

    private static func outcome(_ survivors: Survivors, name: String, options: LeakCheckOptions) -> LeakCheckOutcome {
        var notes: [String] = []
        if let notice = notCheckedNoticeOnce() { notes.append(notice) }
        guard !survivors.isEmpty || !survivors.processWide.isEmpty else {
            return LeakCheckOutcome(findings: nil, notes: notes)
        }
        if options.includesUnscopedObjects {
            let all = survivors.own.union(survivors.offTask)
            let (failure, possible) = findings(for: all, ifLeaked: survivors.processWide, name: name, options: options)
            if let possible { notes.append(possible) }
            return LeakCheckOutcome(findings: failure, notes: notes)
        }
        var failure: LeakFindings?
        if !survivors.own.isEmpty || !survivors.processWide.isEmpty {
            let possible: String?
            (failure, possible) = findings(
                for: survivors.own, ifLeaked: survivors.processWide, name: name, options: options)
            if let possible { notes.append(possible) }
        }
        if !survivors.offTask.isEmpty, let note = unattributedNote(survivors.offTask, name: name) {
            notes.append(note)
        }
        return LeakCheckOutcome(findings: failure, notes: notes)
    }

    /// Describes the leaked ones among objects allocated off the test's task, once each.
    ///
    /// Each object is examined once per process, leaked or not: in a busy test process the same
    /// long-lived objects survive many checks, and every examination costs a whole-process
    /// snapshot that holds every object for a moment.
    private static func unattributedNote(_ ids: Set<UInt64>, name: String) -> String? {
        let unexamined = examinedUnattributed.withLock { examined in
            let fresh = ids.subtracting(examined)
            examined.formUnion(fresh)
            return fresh
        }
        guard !unexamined.isEmpty else { return nil }
        // Symbolicated only when something is reported: most of the time nothing is.
        let found = LeakGraph.findLeaks()
        // Library leaks (XCTest's test ⇄ run pairs and what only they hold) are never the test's.
        let leaked = unexamined.intersection(KnownLeaks.userLeaks(of: found.report, in: found.snapshot).objects)
        let fresh = reportedUnattributed.withLock { reported in
            let fresh = leaked.subtracting(reported)
            reported.formUnion(fresh)
            return fresh
        }
        guard !fresh.isEmpty else { return nil }
        let snapshot = Symbolicator.symbolicate(found.snapshot)
        var message = "\(fresh.count) leaked tracked object(s) were allocated outside the task of \(name) while it ran "
        message += "(a DispatchQueue, a Thread or Task.detached), so they are not blamed on it; "
        message += "use .detectLeaks(includingUnscopedObjects: true) in a .serialized suite to fail on them:\n"
        message += LeakTrace.describe(snapshot, report: found.report, objects: fresh)
        return message
    }

    /// The findings for `survivors` (tracked objects still alive) and for the objects of
    /// `ifLeaked` that leaked (nil when there are none), and a note on the objects of `ifLeaked`
    /// that may have leaked: held only by references the graph does not show, reaching memory
    /// LeakGraph could not read (said, not failed: the check could not decide).
    private static func findings(
        for survivors: Set<UInt64>, ifLeaked candidates: Set<UInt64>, name: String, options: LeakCheckOptions
    ) -> (LeakFindings?, possibleLeaks: String?) {
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        let possible = possibleLeakNote(candidates, snapshot: snapshot, report: report, name: name, options: options)
        // Library leaks (XCTest's test ⇄ run pairs and what only they hold) never fail a test.
        let userLeaked = KnownLeaks.userLeaks(of: report, in: snapshot).objects
        let objects = snapshot.objects.filter { object in
            survivors.contains(object.id)
                || (candidates.contains(object.id) && userLeaked.contains(object.id)
                    && !options.ignores(type: object.type, label: object.label))
        }
        guard !objects.isEmpty else { return (nil, possible) }
        let ids = Set(objects.map(\.id))
        let kind = objects.count > objects.filter { survivors.contains($0.id) }.count ? "" : "tracked "
        var message = "\(objects.count) \(kind)object(s) allocated during \(name) are still alive"
        let leakedCount = objects.filter { report.leakedObjectIDs.contains($0.id) }.count
        if leakedCount > 0 { message += " (\(leakedCount) leaked in cycles nothing else holds)" }
        message += ":\n"
        var trace = LeakTrace.describe(snapshot, report: report, objects: ids)
        if trace.isEmpty {
            trace = objects.prefix(20).map { object in
                "  \(object.displayName)"
                    + (snapshot.stack(object.stack)?.userFrameDescription.map { " allocated at \($0)" } ?? "")
            }.joined(separator: "\n")
        }
        message += trace
        var (artifacts, unwritten) =
            options.writesArtifacts
            ? writeArtifacts(snapshot: snapshot, report: report, objects: ids, name: name, options: options)
            : ([], nil)
        if let unwritten { message += "\nGraph not written: \(unwritten)" }
        if let dot = artifacts.first {
            message += "\nGraph: \(dot)" + (artifacts.count > 1 ? " (picture: \(artifacts[1]))" : "")
            if let page = writePage(message: message, picture: artifacts.count > 1 ? artifacts[1] : nil, dot: dot) {
                artifacts.append(page)
            }
        }
        var findings = LeakFindings(objects: objects, message: message, artifacts: artifacts, report: report)
        findings.userLocation = userLocation(of: objects, in: snapshot)
        return (findings, possible)
    }

    /// `possible leak: …` for the possible leaks among `candidates` (objects whole-process
    /// tracking recorded during the test), nil when there are none.
    private static func possibleLeakNote(
        _ candidates: Set<UInt64>, snapshot: GraphSnapshot, report: LeakReport, name: String,
        options: LeakCheckOptions
    ) -> String? {
        guard !report.possibleLeaks.isEmpty, !candidates.isEmpty else { return nil }
        let mine = report.possibleLeaks.filter { leak in
            let members = leak.cycle.map { report.cycles[$0].objects } ?? leak.object.map { [$0] } ?? []
            return members.contains { id in
                candidates.contains(id)
                    && !(snapshot.object(id).map { options.ignores(type: $0.type, label: $0.label) } ?? false)
            }
        }
        guard !mine.isEmpty else { return nil }
        let described = Symbolicator.symbolicate(snapshot)
        let lines = mine.prefix(10).map { leak in
            "  " + LeakTrace.possibleLeakSentence(leak, cycle: leak.cycle.map { report.cycles[$0] }, described)
        }
        return "\(mine.count) possible leak(s) among the objects allocated during \(name) (not failed: LeakGraph "
            + "could not read what may hold them):\n" + lines.joined(separator: "\n")
    }

    /// The source line to report a failure at when the test framework cannot tell the test's own
    /// (XCTest): the first allocation site among the objects in a test file, else in user code.
    static func userLocation(of objects: [ObjectInfo], in snapshot: GraphSnapshot) -> SourceLine? {
        // From each stack's first user frame outwards: frames inside initialisers only repeat the type.
        let candidates = objects.compactMap { snapshot.stack($0.stack) }.flatMap { stack -> [SourceLine] in
            // The symbolizer's absolute paths: the frames' text shows paths relative to their
            // package, which the working directory (Xcode's, `--package-path`) need not be.
            let frames = stack.addresses.isEmpty ? [] : Symbolicator.stackFrames(for: stack.addresses)
            guard frames.count == stack.frames.count, !frames.isEmpty else {
                return stack.frames.dropFirst(stack.userFrame ?? stack.frames.count).compactMap(SourceLine.init(frame:))
            }
            return frames.dropFirst(stack.userFrame ?? frames.count).compactMap { frame in
                guard let file = frame.file, file.hasPrefix("/"), let line = frame.line, line > 0 else { return nil }
                return SourceLine(file: file, line: line)
            }
        }
        return candidates.first { $0.file.contains("/Tests/") } ?? candidates.first
    }

    /// `<artifacts>/<name>.html`: the failure message and the picture on one offline page, for
    /// IDEs and CI that show attachments.
    private static func writePage(message: String, picture: String?, dot: String) -> String? {
        let stem = String(dot.dropLast(".dot".count))
        var svg = picture.flatMap { FileManager.default.contents(atPath: $0) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        if let text = svg, let start = text.range(of: "<svg") { svg = String(text[start.lowerBound...]) }
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>LeakGraph: \(escape(stem.split(separator: "/").last.map(String.init) ?? stem))</title>
            <style>body{font:15px/1.45 system-ui,sans-serif;margin:1.5em}pre{white-space:pre-wrap;font-size:13px;\
            background:#fff5f5;border:1px solid #f3c2c2;padding:.8em;border-radius:6px}\
            .graph{overflow:auto;border:1px solid #ddd}</style></head>
            <body><h1>Leak check failed</h1><pre>\(escape(message))</pre>
            <div class="graph">\(svg ?? "<p>No picture: \(escape(Graphviz.installHint)).</p>")</div></body></html>

            """
        do {
            try SafeFileWriter.write(page, to: stem + ".html", replace: true)
            return stem + ".html"
        } catch {
            return nil
        }
    }

    /// Writes `<artifacts>/<name>.dot` (and `.svg`) with the region's objects and one hop of
    /// context. These files belong to LeakGraph, so a rerun replaces them.
    /// - Returns: The files written, and why none were when the folder cannot be written (said in
    ///   the failure message: the `Graph:` line and the attachments must not just vanish).
    private static func writeArtifacts(
        snapshot: GraphSnapshot, report: LeakReport, objects: Set<UInt64>, name: String, options: LeakCheckOptions
    ) -> (files: [String], unwritten: String?) {
        var included = objects
        for edge in snapshot.edges where objects.contains(edge.from) || objects.contains(edge.to) {
            included.insert(edge.from)
            included.insert(edge.to)
        }
        let subgraph = GraphSnapshot(
            objects: snapshot.objects.filter { included.contains($0.id) },
            edges: snapshot.edges.filter { included.contains($0.from) && included.contains($0.to) },
            stacks: snapshot.stacks, time: snapshot.time)
        let subreport = LeakReport(
            cycles: report.cycles.filter { $0.objects.contains(where: included.contains) },
            leakedObjectIDs: report.leakedObjectIDs.intersection(included), unknownOwners: [], finishedButHeld: [])
        let dot = DotExporter.render(subgraph, report: subreport, options: .init(scope: .everything, title: name))
        let stem = options.artifactsDirectory + "/" + fileName(name)
        do {
            try SafeFileWriter.createDirectory(options.artifactsDirectory)
            try SafeFileWriter.write(dot, to: stem + ".dot", replace: true)
        } catch {
            return ([], "\(error) (LEAKGRAPH_ARTIFACTS_DIR or LeakCheckOptions.artifactsDirectory)")
        }
        var files = [stem + ".dot"]
        if Graphviz.dotExecutable != nil, (try? Graphviz.render(dotFile: stem + ".dot", to: stem + ".svg")) != nil {
            files.append(stem + ".svg")
        }
        return (files, nil)
    }

    static func fileName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return String(cleaned.prefix(120))
    }
}
