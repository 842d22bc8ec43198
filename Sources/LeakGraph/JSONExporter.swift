import Foundation

/// Writes a snapshot and its leak report as a LeakGraph JSON dump, version 1.
///
/// The format (documented in the README, "JSON format"):
/// ```
/// {"format": "leakgraph", "version": 1, "pid": Int, "time": Double,
///  "objects": [{"id", "type", "label", "strongRetainCount", "stack", "time", "state", "scope", "leaked"}],
///  "edges":   [{"from", "to", "kind", "label", "origin", "count", "site", "closure"}],
///  "stacks":  [{"id", "frames", "userFrame"}],
///  "cycles":  [{"objects", "leaked", "signature", "path": [{"from", "to", "label"}], "loop", "unexplainedHolders"}],
///  "unknownOwners": [{"object", "unexplained"}]}
/// ```
/// Output is deterministic for a given snapshot: objects by id, edges in snapshot order.
public enum JSONExporter {
    /// The dump's format name.
    public static let formatName = "leakgraph"
    /// The version this library writes and the newest it reads.
    public static let version = 1

    /// Renders `snapshot` (symbolicating its stacks first when they have raw addresses only).
    ///
    /// - Parameters:
    ///   - snapshot: The graph to write.
    ///   - report: Its analysis; computed when nil.
    ///   - processID: Written as `pid`.
    public static func render(_ snapshot: GraphSnapshot, report: LeakReport? = nil, processID: Int32? = nil) -> String {
        String(decoding: renderBytes(snapshot, report: report, processID: processID), as: UTF8.self)
    }

    /// ``render(_:report:processID:)`` as UTF-8 bytes, ready to write.
    public static func renderBytes(_ snapshot: GraphSnapshot, report: LeakReport? = nil, processID: Int32? = nil)
        -> [UInt8]
    {
        let needsSymbols =
            snapshot.stacks.contains(where: \.needsSymbolication)
            || snapshot.edges.contains { $0.closureAddress != nil && $0.closure == nil }
        let snapshot = needsSymbols ? Symbolicator.symbolicate(snapshot) : snapshot
        let report = report ?? LeakDetector.analyze(snapshot)
        var out = JSONWriter(capacity: snapshot.objects.count * 160 + snapshot.edges.count * 110 + 4096)
        out.raw("{\"format\":\"leakgraph\",\"version\":")
        out.int(version)
        if let processID {
            out.raw(",\"pid\":")
            out.int(processID)
        }
        out.raw(",\"time\":")
        out.seconds(snapshot.time)
        out.raw(",\n\"objects\":[")
        for (index, object) in snapshot.objects.enumerated() {
            out.raw(index > 0 ? ",\n{\"id\":" : "\n{\"id\":")
            out.int(object.id)
            out.raw(",\"type\":")
            out.string(object.type)
            out.raw(",\"label\":")
            out.optionalString(object.label)
            out.raw(",\"strongRetainCount\":")
            out.optionalInt(object.strongRetainCount)
            out.raw(",\"stack\":")
            out.optionalInt(object.stack)
            out.raw(",\"time\":")
            out.seconds(object.time)
            out.raw(",\"state\":")
            out.string(object.state.rawValue)
            out.raw(",\"scope\":")
            out.int(object.scope)
            out.raw(",\"leaked\":")
            out.bool(report.leakedObjectIDs.contains(object.id))
            out.raw("}")
        }
        out.raw("],\n\"edges\":[")
        for (index, edge) in snapshot.edges.enumerated() {
            out.raw(index > 0 ? ",\n{\"from\":" : "\n{\"from\":")
            out.int(edge.from)
            out.raw(",\"to\":")
            out.int(edge.to)
            out.raw(",\"kind\":")
            out.string(edge.kind.rawValue)
            out.raw(",\"label\":")
            out.string(edge.label)
            out.raw(",\"origin\":")
            out.string(edge.origin.rawValue)
            out.raw(",\"count\":")
            out.int(edge.count)
            out.raw(",\"site\":")
            out.optionalInt(edge.site)
            out.raw(",\"closure\":")
            out.optionalString(edge.closure)
            out.raw("}")
        }
        out.raw("],\n\"stacks\":[")
        for (index, stack) in snapshot.stacks.enumerated() {
            out.raw(index > 0 ? ",\n{\"id\":" : "\n{\"id\":")
            out.int(stack.id)
            out.raw(",\"frames\":[")
            for (frameIndex, frame) in stack.frames.enumerated() {
                if frameIndex > 0 { out.raw(",") }
                out.string(frame)
            }
            out.raw("],\"userFrame\":")
            out.optionalInt(stack.userFrame)
            out.raw("}")
        }
        out.raw("],\n\"cycles\":[")
        for (index, cycle) in report.cycles.enumerated() {
            out.raw(index > 0 ? ",\n{\"objects\":[" : "\n{\"objects\":[")
            for (memberIndex, member) in cycle.objects.enumerated() {
                if memberIndex > 0 { out.raw(",") }
                out.int(member)
            }
            out.raw("],\"leaked\":")
            out.bool(cycle.leaked)
            out.raw(",\"signature\":")
            out.string(cycle.signature)
            out.raw(",\"path\":[")
            for (stepIndex, step) in cycle.path.enumerated() {
                out.raw(stepIndex > 0 ? ",{\"from\":" : "{\"from\":")
                out.int(step.from)
                out.raw(",\"to\":")
                out.int(step.to)
                out.raw(",\"label\":")
                out.string(step.label)
                out.raw("}")
            }
            out.raw("],\"loop\":")
            out.string(cycle.loopDescription)
            out.raw(",\"unexplainedHolders\":[")
            for (holderIndex, holder) in cycle.unexplainedHolders.enumerated() {
                out.raw(holderIndex > 0 ? ",{\"object\":" : "{\"object\":")
                out.int(holder.object)
                out.raw(",\"unexplained\":")
                out.int(holder.unexplained)
                out.raw(",\"knownHolders\":[")
                for (knownIndex, known) in holder.knownHolders.enumerated() {
                    if knownIndex > 0 { out.raw(",") }
                    out.int(known)
                }
                out.raw("]}")
            }
            out.raw("]}")
        }
        out.raw("],\n\"unknownOwners\":[")
        for (index, owner) in report.unknownOwners.enumerated() {
            out.raw(index > 0 ? ",{\"object\":" : "{\"object\":")
            out.int(owner.object)
            out.raw(",\"unexplained\":")
            out.int(owner.unexplained)
            out.raw("}")
        }
        out.raw("]}\n")
        return out.bytes
    }
}
