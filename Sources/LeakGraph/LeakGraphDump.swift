import Foundation

/// A JSON dump read back from disk: the snapshot plus the cycles recorded when it was written.
///
/// ```swift
/// let dump = try LeakGraphDump(contentsOf: "leakgraph-out/leakgraph-123.json")
/// print(dump.cycles.filter(\.leaked).count)
/// ```
public struct LeakGraphDump: Sendable {
    /// The graph.
    public var snapshot: GraphSnapshot
    /// The cycles as written (recomputed with ``LeakDetector`` when the file has none).
    public var cycles: [Cycle]
    /// Leaked object ids as written.
    public var leakedObjectIDs: Set<UInt64>
    /// The writing process's id, when recorded.
    public var processID: Int32?

    /// Reads and validates a dump.
    ///
    /// - Throws: ``DumpError`` with a one-line description naming the problem.
    public init(contentsOf path: String) throws(DumpError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DumpError(path: path, problem: "no such file")
        }
        guard !isDirectory.boolValue else { throw DumpError(path: path, problem: "is a directory, not a dump file") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw DumpError(path: path, problem: "cannot be read (\(error.localizedDescription))")
        }
        try self.init(data: data, path: path)
    }

    /// Decodes and validates dump bytes; `path` only names the source in errors.
    public init(data: Data, path: String = "<data>") throws(DumpError) {
        guard !data.isEmpty else { throw DumpError(path: path, problem: "is empty") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch {
            throw DumpError(path: path, problem: Self.describe(error, what: "is not a LeakGraph JSON dump"))
        }
        guard header.format == JSONExporter.formatName else {
            throw DumpError(path: path, problem: "has format \"\(header.format)\", expected \"leakgraph\"")
        }
        guard header.version <= JSONExporter.version else {
            throw DumpError(
                path: path,
                problem: "is dump version \(header.version), newer than this tool reads (\(JSONExporter.version)); update LeakGraph")
        }
        guard header.version >= 1 else { throw DumpError(path: path, problem: "has invalid version \(header.version)") }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw DumpError(path: path, problem: Self.describe(error, what: "is not a valid LeakGraph dump"))
        }
        var ids = Set<UInt64>()
        ids.reserveCapacity(file.objects.count)
        for object in file.objects where !ids.insert(object.id).inserted {
            throw DumpError(path: path, problem: "lists object id \(object.id) twice")
        }
        let stackIDs = Set((file.stacks ?? []).map(\.id))
        for object in file.objects {
            if let stack = object.stack, !stackIDs.contains(stack) {
                throw DumpError(path: path, problem: "object \(object.id) names stack \(stack), which is not in \"stacks\"")
            }
        }
        for edge in file.edges {
            guard ids.contains(edge.from), ids.contains(edge.to) else {
                throw DumpError(path: path, problem: "edge \(edge.from)→\(edge.to) names an object that is not in \"objects\"")
            }
        }
        for cycle in file.cycles ?? [] {
            for id in cycle.objects where !ids.contains(id) {
                throw DumpError(path: path, problem: "a cycle names object \(id), which is not in \"objects\"")
            }
        }
        let objects = file.objects.map { object in
            ObjectInfo(
                id: object.id, type: object.type, label: object.label, strongRetainCount: object.strongRetainCount,
                stack: object.stack, time: object.time ?? 0, state: object.state.flatMap(ObjectState.init(rawValue:)) ?? .unspecified,
                scope: object.scope ?? 0)
        }
        let edges = file.edges.map { edge in
            EdgeInfo(
                from: edge.from, to: edge.to, kind: edge.kind, label: edge.label,
                origin: edge.origin.flatMap(EdgeOrigin.init(rawValue:)) ?? .declared, count: max(1, edge.count ?? 1),
                site: edge.site, closure: edge.closure)
        }
        let stacks = (file.stacks ?? []).map { StackInfo(id: $0.id, frames: $0.frames, userFrame: $0.userFrame) }
        snapshot = GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: file.time ?? 0)
        processID = file.pid
        if let written = file.cycles {
            cycles = written.map { cycle in
                Cycle(
                    objects: cycle.objects, leaked: cycle.leaked, signature: cycle.signature,
                    path: cycle.path.map { Cycle.PathStep(from: $0.from, to: $0.to, label: $0.label) },
                    loopDescription: cycle.loop ?? cycle.signature, unexplainedHolders: cycle.unexplainedHolders ?? [])
            }
            let flagged = file.objects.filter { $0.leaked == true }.map(\.id)
            leakedObjectIDs = flagged.isEmpty ? Set(cycles.filter(\.leaked).flatMap(\.objects)) : Set(flagged)
        } else {
            let report = LeakDetector.analyze(snapshot)
            cycles = report.cycles
            leakedObjectIDs = report.leakedObjectIDs
        }
    }

    private static func describe(_ error: any Error, what: String) -> String {
        guard let decoding = error as? DecodingError else { return what }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "top level" : String(text.drop { $0 == "." })
        }
        switch decoding {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "\(what): not valid JSON (truncated or corrupted)" }
            return "\(what): invalid value at \(path(context))"
        case .keyNotFound(let key, let context):
            let at = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "\(what): missing field \"\(key.stringValue)\"\(at)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(what): wrong type at \(path(context))"
        @unknown default:
            return what
        }
    }

    private struct Header: Decodable {
        let format: String
        let version: Int
    }

    private struct File: Decodable {
        let pid: Int32?
        let time: Double?
        let objects: [Object]
        let edges: [Edge]
        let stacks: [Stack]?
        let cycles: [WrittenCycle]?
    }

    private struct Object: Decodable {
        let id: UInt64
        let type: String
        let label: String?
        let strongRetainCount: Int?
        let stack: Int?
        let time: Double?
        let state: String?
        let scope: UInt32?
        let leaked: Bool?
    }

    private struct Edge: Decodable {
        let from: UInt64
        let to: UInt64
        let kind: EdgeKind
        let label: String
        let origin: String?
        let count: Int?
        let site: Int?
        let closure: String?
    }

    private struct Stack: Decodable {
        let id: Int
        let frames: [String]
        let userFrame: Int?
    }

    private struct WrittenCycle: Decodable {
        let objects: [UInt64]
        let leaked: Bool
        let signature: String
        let path: [Step]
        let loop: String?
        let unexplainedHolders: [Cycle.Holder]?
    }

    private struct Step: Decodable {
        let from: UInt64
        let to: UInt64
        let label: String
    }
}

/// A dump that could not be read, with a one-line description: `<path>: <problem>`.
public struct DumpError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }
}
