import Foundation
import LeakGraph

/// What a growth check found: the types (and allocation sites) whose live count grew on every
/// iteration after the warm-up.
public struct GrowthReport: Sendable {
    /// One type that grew.
    public struct GrowingType: Sendable {
        /// The type, as snapshots name it.
        public var type: String
        /// Its live count after the warm-up, then after each iteration.
        public var counts: [Int]
        /// Allocation sites whose count grew the same way (`File.swift:12 (function)`).
        public var sites: [String]
        /// Who holds the newest instance: owners from the outermost to the instance, with the
        /// references between them (`Cache —entries→ Entry`), when the graph knows.
        public var newestPath: String?
    }

    /// The growing types, most grown first.
    public var growing: [GrowingType]
    /// Notes that are not failures (tracking off: nothing was counted).
    public var notes: [String]

    /// Whether something grew.
    public var hasGrowth: Bool { !growing.isEmpty }

    /// A description of the growth for a test failure.
    public var message: String {
        var lines = ["live objects grew on every iteration:"]
        for type in growing {
            lines.append("  \(type.type): \(type.counts.map(String.init).joined(separator: " → "))")
            for site in type.sites { lines.append("    allocated at \(site)") }
            if let path = type.newestPath { lines.append("    newest held by: \(path)") }
        }
        return lines.joined(separator: "\n")
    }
}

/// Runs a scenario repeatedly and reports the types whose live instances grow every time, the
/// way LeakCanary and memlab find leaks that no single run shows (a cache that keeps every
/// request, a subscription added per screen visit).
///
/// Counts are of tracked objects allocated by the calling task since the check began (the current
/// leak scope's, or a scope of its own), so tests running in parallel do not disturb them.
public enum GrowthCheck {
    /// Runs `body` `warmUp` times, then `iterations` times, counting live objects by type after
    /// each, and reports what grew on every iteration.
    public static func run(iterations: Int = 5, warmUp: Int = 1, _ body: () throws -> Void) rethrows -> GrowthReport {
        precondition(iterations >= 2, "GrowthCheck: at least 2 iterations are needed to see growth")
        if LeakScope.currentID == nil {
            return try LeakScope.run { try run(iterations: iterations, warmUp: warmUp, body) }.result
        }
        let start = LeakGraph.checkpoint()
        for _ in 0..<warmUp { try body() }
        var counts = [census(since: start)]
        for _ in 0..<iterations {
            try body()
            counts.append(census(since: start))
        }
        return report(counts, since: start)
    }

    /// ``run(iterations:warmUp:_:)`` for an async scenario.
    public static func run(iterations: Int = 5, warmUp: Int = 1, _ body: () async throws -> Void) async rethrows
        -> GrowthReport
    {
        precondition(iterations >= 2, "GrowthCheck: at least 2 iterations are needed to see growth")
        if LeakScope.currentID == nil {
            return try await LeakScope.run { try await run(iterations: iterations, warmUp: warmUp, body) }.result
        }
        let start = LeakGraph.checkpoint()
        for _ in 0..<warmUp { try await body() }
        var counts = [census(since: start)]
        for _ in 0..<iterations {
            try await body()
            counts.append(census(since: start))
        }
        return report(counts, since: start)
    }

    /// Live counts by type and by (type, allocation stack) of this task's objects since `start`.
    /// Stacks are keyed by their return addresses: a snapshot numbers its stacks afresh.
    struct Census {
        var byType: [String: Int] = [:]
        var bySite: [String: [[UInt]: Int]] = [:]
    }

    private static func census(since start: Checkpoint) -> Census {
        let scope = LeakScope.currentID
        var census = Census()
        let snapshot = LeakGraph.snapshot(options: .declaredOnly)
        for object in snapshot.objects
        where object.id >= start.nextObjectID && !object.isRecordedProcessWide && object.scope == scope {
            census.byType[object.type, default: 0] += 1
            census.bySite[object.type, default: [:]][snapshot.stack(object.stack)?.addresses ?? [], default: 0] += 1
        }
        return census
    }

    private static func grewEveryTime(_ values: [Int]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    }

    private static func report(_ counts: [Census], since start: Checkpoint) -> GrowthReport {
        var notes: [String] = []
        if let notice = LeakCheck.notCheckedNoticeOnce() { notes.append(notice) }
        let types = Set(counts.last?.byType.keys.map { $0 } ?? [])
        var growing: [(type: String, counts: [Int], stacks: [[UInt]])] = []
        for type in types {
            let series = counts.map { $0.byType[type] ?? 0 }
            guard grewEveryTime(series) else { continue }
            let stacks = Set(counts.last?.bySite[type]?.keys.map { $0 } ?? []).filter { stack in
                grewEveryTime(counts.map { $0.bySite[type]?[stack] ?? 0 })
            }
            growing.append((type, series, Array(stacks)))
        }
        guard !growing.isEmpty else { return GrowthReport(growing: [], notes: notes) }
        // One full snapshot, symbolicated, for the sites and the paths of what grew.
        let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot())
        var siteOfStack: [[UInt]: String] = [:]
        for stack in snapshot.stacks { siteOfStack[stack.addresses] = stack.userFrameDescription }
        let result = growing.sorted { ($0.counts.last! - $0.counts[0]) > ($1.counts.last! - $1.counts[0]) }.map {
            grown in
            GrowthReport.GrowingType(
                type: grown.type, counts: grown.counts,
                sites: grown.stacks.compactMap { siteOfStack[$0] }.sorted(),
                newestPath: newestPath(of: grown.type, since: start, in: snapshot))
        }
        return GrowthReport(growing: result, notes: notes)
    }

    /// The chain of owners of the newest instance of `type`, found by walking strong references
    /// backwards (breadth first, so the shortest chain) to an object nothing in the graph holds
    /// (or, in a cycle nothing outside holds, to the farthest member).
    private static func newestPath(of type: String, since start: Checkpoint, in snapshot: GraphSnapshot) -> String? {
        // This task's instances only: a test running in parallel may make the same type.
        let scope = LeakScope.currentID
        let candidates = snapshot.objects.filter {
            $0.type == type && $0.id >= start.nextObjectID && $0.scope == scope
        }
        guard let newest = candidates.max(by: { $0.id < $1.id }) else { return nil }
        var incoming: [UInt64: [EdgeInfo]] = [:]
        for edge in snapshot.edges where edge.kind.keepsAlive { incoming[edge.to, default: []].append(edge) }
        // `toward[owner]` is the edge from `owner` one step closer to the newest instance.
        var toward: [UInt64: EdgeInfo] = [:]
        var queue = [newest.id]
        var head = 0
        var root = newest.id
        while head < queue.count {
            let current = queue[head]
            head += 1
            root = current
            let owners = incoming[current] ?? []
            if owners.isEmpty && current != newest.id { break }
            for edge in owners where toward[edge.from] == nil && edge.from != newest.id {
                toward[edge.from] = edge
                queue.append(edge.from)
            }
        }
        guard root != newest.id else { return nil }
        var parts = [snapshot.object(root)?.displayName ?? "#\(root)"]
        var current = root
        while current != newest.id, let edge = toward[current] {
            parts.append("—\(edge.label)→ \(snapshot.object(edge.to)?.displayName ?? "#\(edge.to)")")
            current = edge.to
        }
        return parts.joined(separator: " ")
    }
}
