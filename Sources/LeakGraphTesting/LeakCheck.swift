import Foundation
import LeakGraph

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
}

/// The engine behind every check in LeakGraphTesting: which tracked objects allocated in a
/// region are still alive once the grace period has passed, and why.
public enum LeakCheck {
    /// Checks the objects allocated in `scope` (and, with ``LeakCheckOptions/includesUnscopedObjects``
    /// and no other scope running concurrently, unscoped objects allocated since its checkpoint).
    ///
    /// - Returns: nil when nothing leaked.
    public static func check(scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()) async
        -> LeakFindings?
    {
        let deadline = ContinuousClock.now + options.gracePeriod
        var survivors = survivingIDs(scope: scope, options: options)
        while !survivors.isEmpty && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            survivors = survivingIDs(scope: scope, options: options)
        }
        guard !survivors.isEmpty else { return nil }
        return findings(for: survivors, name: name, options: options)
    }

    /// Synchronous check for XCTest (waits with `Thread.sleep`).
    public static func checkSynchronously(
        scope: LeakScope, name: String, options: LeakCheckOptions = LeakCheckOptions()
    )
        -> LeakFindings?
    {
        let deadline = ContinuousClock.now + options.gracePeriod
        var survivors = survivingIDs(scope: scope, options: options)
        while !survivors.isEmpty && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            survivors = survivingIDs(scope: scope, options: options)
        }
        guard !survivors.isEmpty else { return nil }
        return findings(for: survivors, name: name, options: options)
    }

    private static func survivingIDs(scope: LeakScope, options: LeakCheckOptions) -> Set<UInt64> {
        // Declared edges only: cheap, and enough to know who is alive.
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        return Set(mine(snapshot, scope: scope, options: options).map(\.id))
    }

    private static func mine(_ snapshot: GraphSnapshot, scope: LeakScope, options: LeakCheckOptions) -> [ObjectInfo] {
        snapshot.objects.filter { object in
            guard object.id >= scope.checkpoint.nextObjectID else { return false }
            guard object.scope == scope.id || (options.includesUnscopedObjects && object.scope == 0 && scope.ranAlone)
            else {
                return false
            }
            return !options.ignores(type: object.type, label: object.label)
        }
    }

    private static func findings(for survivors: Set<UInt64>, name: String, options: LeakCheckOptions) -> LeakFindings {
        let found = LeakGraph.findLeaks()
        let snapshot = Symbolicator.symbolicate(found.snapshot)
        let report = found.report
        let objects = snapshot.objects.filter { survivors.contains($0.id) }
        let ids = Set(objects.map(\.id))
        var message = "\(objects.count) tracked object(s) allocated during \(name) are still alive"
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
        let artifacts = writeArtifacts(snapshot: snapshot, report: report, objects: ids, name: name, options: options)
        if let dot = artifacts.first {
            message += "\nGraph: \(dot)" + (artifacts.count > 1 ? " (picture: \(artifacts[1]))" : "")
        }
        return LeakFindings(objects: objects, message: message, artifacts: artifacts, report: report)
    }

    /// Writes `<artifacts>/<name>.dot` (and `.svg`) with the region's objects and one hop of
    /// context. These files belong to LeakGraph, so a rerun replaces them.
    private static func writeArtifacts(
        snapshot: GraphSnapshot, report: LeakReport, objects: Set<UInt64>, name: String, options: LeakCheckOptions
    ) -> [String] {
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
            return []
        }
        var files = [stem + ".dot"]
        if Graphviz.dotExecutable != nil, (try? Graphviz.render(dotFile: stem + ".dot", to: stem + ".svg")) != nil {
            files.append(stem + ".svg")
        }
        return files
    }

    static func fileName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return String(cleaned.prefix(120))
    }
}
