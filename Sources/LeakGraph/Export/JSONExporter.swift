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
    public static var formatName: String { DumpSchema.formatName }
    /// The version this library writes and the newest it reads.
    public static var version: Int { DumpSchema.version }

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
        let snapshot = Symbolicator.symbolicatedIfNeeded(snapshot)
        return write(snapshot, report: report ?? LeakDetector.analyze(snapshot), processID: processID)
    }

    /// The dump of a snapshot as it is (no symbolication) with its analysis: a pure function of
    /// its arguments.
    package static func write(_ snapshot: GraphSnapshot, report: LeakReport, processID: Int32?) -> [UInt8] {
        var out = JSONWriter(capacity: snapshot.objects.count * 160 + snapshot.edges.count * 110 + 4096)
        typealias Top = DumpSchema.Top
        typealias Object = DumpSchema.Object
        typealias Edge = DumpSchema.Edge
        typealias Stack = DumpSchema.Stack
        typealias CycleField = DumpSchema.Cycle
        typealias Step = DumpSchema.Step
        typealias Holder = DumpSchema.Holder
        typealias Owner = DumpSchema.Owner
        /// `[`, or `,` between entries, each entry on a line of its own for line-based tools.
        func separator(_ index: Int, _ out: inout JSONWriter) { out.raw(index > 0 ? ",\n{" : "\n{") }
        func ints(_ values: [some BinaryInteger], _ out: inout JSONWriter) {
            out.raw("[")
            for (index, value) in values.enumerated() {
                if index > 0 { out.raw(",") }
                out.int(value)
            }
            out.raw("]")
        }
        out.raw("{")
        out.key(Top.format, first: true)
        out.string(DumpSchema.formatName)
        out.key(Top.version)
        out.int(DumpSchema.version)
        if let processID {
            out.key(Top.pid)
            out.int(processID)
        }
        out.key(Top.time)
        out.seconds(snapshot.time)
        out.raw(",\n")
        out.key(Top.objects, first: true)
        out.raw("[")
        for (index, object) in snapshot.objects.enumerated() {
            separator(index, &out)
            out.key(Object.id, first: true)
            out.int(object.id)
            out.key(Object.type)
            out.string(object.type)
            out.key(Object.label)
            out.optionalString(object.label)
            out.key(Object.strongRetainCount)
            out.optionalInt(object.strongRetainCount)
            out.key(Object.stack)
            out.optionalInt(object.stack)
            out.key(Object.time)
            out.seconds(object.time)
            out.key(Object.state)
            out.string(object.state.rawValue)
            out.key(Object.scope)
            out.int(object.scope)
            out.key(Object.leaked)
            out.bool(report.leakedObjectIDs.contains(object.id))
            out.raw("}")
        }
        out.raw("],\n")
        out.key(Top.edges, first: true)
        out.raw("[")
        for (index, edge) in snapshot.edges.enumerated() {
            separator(index, &out)
            out.key(Edge.from, first: true)
            out.int(edge.from)
            out.key(Edge.to)
            out.int(edge.to)
            out.key(Edge.kind)
            out.string(edge.kind.rawValue)
            out.key(Edge.label)
            out.string(edge.label)
            out.key(Edge.origin)
            out.string(edge.origin.rawValue)
            out.key(Edge.count)
            out.int(edge.count)
            out.key(Edge.site)
            out.optionalInt(edge.site)
            out.key(Edge.closure)
            out.optionalString(edge.closure)
            out.raw("}")
        }
        out.raw("],\n")
        out.key(Top.stacks, first: true)
        out.raw("[")
        for (index, stack) in snapshot.stacks.enumerated() {
            separator(index, &out)
            out.key(Stack.id, first: true)
            out.int(stack.id)
            out.key(Stack.frames)
            out.raw("[")
            for (frameIndex, frame) in stack.frames.enumerated() {
                if frameIndex > 0 { out.raw(",") }
                out.string(frame)
            }
            out.raw("]")
            out.key(Stack.userFrame)
            out.optionalInt(stack.userFrame)
            out.raw("}")
        }
        out.raw("],\n")
        out.key(Top.cycles, first: true)
        out.raw("[")
        for (index, cycle) in report.cycles.enumerated() {
            separator(index, &out)
            out.key(CycleField.objects, first: true)
            ints(cycle.objects, &out)
            out.key(CycleField.leaked)
            out.bool(cycle.leaked)
            out.key(CycleField.signature)
            out.string(cycle.signature)
            out.key(CycleField.path)
            out.raw("[")
            for (stepIndex, step) in cycle.path.enumerated() {
                out.raw(stepIndex > 0 ? ",{" : "{")
                out.key(Step.from, first: true)
                out.int(step.from)
                out.key(Step.to)
                out.int(step.to)
                out.key(Step.label)
                out.string(step.label)
                out.raw("}")
            }
            out.raw("]")
            out.key(CycleField.loop)
            out.string(cycle.loopDescription)
            out.key(CycleField.unexplainedHolders)
            out.raw("[")
            for (holderIndex, holder) in cycle.unexplainedHolders.enumerated() {
                out.raw(holderIndex > 0 ? ",{" : "{")
                out.key(Holder.object, first: true)
                out.int(holder.object)
                out.key(Holder.unexplained)
                out.int(holder.unexplained)
                out.key(Holder.knownHolders)
                ints(holder.knownHolders, &out)
                out.raw("}")
            }
            out.raw("]}")
        }
        out.raw("],\n")
        out.key(Top.unknownOwners, first: true)
        out.raw("[")
        for (index, owner) in report.unknownOwners.enumerated() {
            out.raw(index > 0 ? ",{" : "{")
            out.key(Owner.object, first: true)
            out.int(owner.object)
            out.key(Owner.unexplained)
            out.int(owner.unexplained)
            out.raw("}")
        }
        out.raw("]}\n")
        return out.bytes
    }
}
