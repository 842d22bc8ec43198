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
        let snapshot =
            snapshot.stacks.contains(where: \.needsSymbolication)
                || snapshot.edges.contains { $0.closureAddress != nil && $0.closure == nil }
            ? Symbolicator.symbolicate(snapshot) : snapshot
        let report = report ?? LeakDetector.analyze(snapshot)
        var out = ""
        out.reserveCapacity(snapshot.objects.count * 120 + snapshot.edges.count * 80 + 1024)
        out += "{\"format\":\"leakgraph\",\"version\":\(version)"
        if let processID { out += ",\"pid\":\(processID)" }
        out += ",\"time\":\(number(snapshot.time))"
        out += ",\n\"objects\":["
        for (index, object) in snapshot.objects.enumerated() {
            if index > 0 { out += "," }
            out += "\n{\"id\":\(object.id),\"type\":"
            appendString(object.type, to: &out)
            out += ",\"label\":"
            if let label = object.label { appendString(label, to: &out) } else { out += "null" }
            out += ",\"strongRetainCount\":" + (object.strongRetainCount.map(String.init) ?? "null")
            out += ",\"stack\":" + (object.stack.map(String.init) ?? "null")
            out += ",\"time\":\(number(object.time)),\"state\":\"\(object.state.rawValue)\",\"scope\":\(object.scope)"
            out += ",\"leaked\":\(report.leakedObjectIDs.contains(object.id))}"
        }
        out += "],\n\"edges\":["
        for (index, edge) in snapshot.edges.enumerated() {
            if index > 0 { out += "," }
            out += "\n{\"from\":\(edge.from),\"to\":\(edge.to),\"kind\":\"\(edge.kind.rawValue)\",\"label\":"
            appendString(edge.label, to: &out)
            out += ",\"origin\":\"\(edge.origin.rawValue)\",\"count\":\(edge.count)"
            out += ",\"site\":" + (edge.site.map(String.init) ?? "null")
            out += ",\"closure\":"
            if let closure = edge.closure { appendString(closure, to: &out) } else { out += "null" }
            out += "}"
        }
        out += "],\n\"stacks\":["
        for (index, stack) in snapshot.stacks.enumerated() {
            if index > 0 { out += "," }
            out += "\n{\"id\":\(stack.id),\"frames\":["
            for (frameIndex, frame) in stack.frames.enumerated() {
                if frameIndex > 0 { out += "," }
                appendString(frame, to: &out)
            }
            out += "],\"userFrame\":" + (stack.userFrame.map(String.init) ?? "null") + "}"
        }
        out += "],\n\"cycles\":["
        for (index, cycle) in report.cycles.enumerated() {
            if index > 0 { out += "," }
            out += "\n{\"objects\":[" + cycle.objects.map(String.init).joined(separator: ",") + "]"
            out += ",\"leaked\":\(cycle.leaked),\"signature\":"
            appendString(cycle.signature, to: &out)
            out += ",\"path\":["
            for (stepIndex, step) in cycle.path.enumerated() {
                if stepIndex > 0 { out += "," }
                out += "{\"from\":\(step.from),\"to\":\(step.to),\"label\":"
                appendString(step.label, to: &out)
                out += "}"
            }
            out += "],\"loop\":"
            appendString(cycle.loopDescription, to: &out)
            out += ",\"unexplainedHolders\":["
            for (holderIndex, holder) in cycle.unexplainedHolders.enumerated() {
                if holderIndex > 0 { out += "," }
                out += "{\"object\":\(holder.object),\"unexplained\":\(holder.unexplained),\"knownHolders\":["
                out += holder.knownHolders.map(String.init).joined(separator: ",") + "]}"
            }
            out += "]}"
        }
        out += "],\n\"unknownOwners\":["
        for (index, owner) in report.unknownOwners.enumerated() {
            if index > 0 { out += "," }
            out += "{\"object\":\(owner.object),\"unexplained\":\(owner.unexplained)}"
        }
        out += "]}\n"
        return out
    }

    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.3f", value)
    }

    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        var needsEscaping = false
        for byte in text.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscaping = true
            break
        }
        if !needsEscaping {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
