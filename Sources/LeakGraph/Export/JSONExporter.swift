import Foundation

/// Writes a snapshot and its leak report as a LeakGraph JSON dump, version 1.
///
/// The format (documented in the README, "JSON format"):
/// ```
/// {"format": "leakgraph", "version": 1, "pid": Int, "time": Double,
///  "summary": {"contents", "liveObjects", "liveEdges", "writtenObjects", "writtenEdges",
///              "types": [{"type", "count", "leaked"}], "trackingOff",
///              "tracking", "recordedObjects", "trackingProblem"}   (dumps written by `writeDump` and at exit)
///  "objects": [{"id", "type", "label", "strongRetainCount", "stack", "time", "state", "scope", "leaked", "processWide",
///               "keepsAlive", "unread": [{"in", "why"}]}],   ("unread" only where discovery could not read)
///               "heldBy": [String],   (only for objects a global was found holding)
///               "outsideHolders": [String]}],   (only where code named what holds the object)
///  "edges":   [{"from", "to", "kind", "label", "origin", "count", "site", "closure"}],
///  "stacks":  [{"id", "frames", "userFrame"}],
///  "cycles":  [{"objects", "leaked", "signature", "path": [{"from", "to", "label"}], "loop", "unexplainedHolders",
///               "libraryLeak"}],   ("libraryLeak" only for a leaked cycle that matches a known library leak)
///  "unknownOwners": [{"object", "unexplained", "reachesUnread"}],
///  "neverFinished": [id], "canNeverFinish": [id],
///  "possibleLeaks": [{"cycle", "object", "unexplained", "unread": [{"object", "in", "why"}]}],   (only when some)
///  "declarations": [{"type", "field", "file", "line", "text"}]}   (where the fields cycles go through are declared; only when known)
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
        return write(
            snapshot, report: report ?? LeakDetector.analyze(snapshot, disposalLabels: LeakAdvice.disposalLabels),
            processID: processID)
    }

    /// The dump of a snapshot as it is (no symbolication) with its analysis: a pure function of
    /// its arguments.
    package static func write(_ snapshot: GraphSnapshot, report: LeakReport, processID: Int32?) -> [UInt8] {
        var out = JSONWriter(
            capacity: snapshot.objects.count * 200 + snapshot.edges.count * 130 + report.cycles.count * 256 + 4096)
        write(snapshot, report: report, processID: processID, into: &out)
        return out.bytes
    }

    /// Writes the dump to `file` in chunks of 4 MB: memory stays flat however big the dump.
    package static func write(
        _ snapshot: GraphSnapshot, report: LeakReport, processID: Int32?, summary: DumpSummary? = nil,
        to file: inout SafeFileWriter.Output
    ) {
        withoutActuallyEscaping({ (chunk: UnsafeRawBufferPointer) in file.write(chunk) }) { flush in
            var out = JSONWriter(chunkSize: 4 << 20, flush: flush)
            write(snapshot, report: report, processID: processID, summary: summary, into: &out)
            out.finish()
        }
    }

    private static func write(
        _ snapshot: GraphSnapshot, report: LeakReport, processID: Int32?, summary: DumpSummary? = nil,
        into out: inout JSONWriter
    ) {
        typealias Top = DumpSchema.Top
        // Every record is written field by field in the schema's order, each value chosen by an
        // exhaustive switch: a field added to the schema cannot be forgotten here.
        let objectKeys = DumpRecordKeys<DumpSchema.Object>()
        let edgeKeys = DumpRecordKeys<DumpSchema.Edge>()
        let stackKeys = DumpRecordKeys<DumpSchema.Stack>()
        let cycleKeys = DumpRecordKeys<DumpSchema.Cycle>()
        let stepKeys = DumpRecordKeys<DumpSchema.Step>()
        let holderKeys = DumpRecordKeys<DumpSchema.Holder>()
        let ownerKeys = DumpRecordKeys<DumpSchema.Owner>()

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
        if let summary {
            let summaryKeys = DumpRecordKeys<DumpSchema.Summary>()
            let typeKeys = DumpRecordKeys<DumpSchema.TypeCount>()
            out.key(Top.summary)
            out.record(summary, keys: summaryKeys) { summary, field, out in
                switch field {
                case .contents: out.string(summary.contents.rawValue)
                case .liveObjects: out.int(summary.liveObjects)
                case .liveEdges: out.int(summary.liveEdges)
                case .writtenObjects: out.int(summary.writtenObjects)
                case .writtenEdges: out.int(summary.writtenEdges)
                case .types:
                    out.array(summary.types) { entry, out in
                        out.record(entry, keys: typeKeys) { entry, field, out in
                            switch field {
                            case .type: out.string(entry.type)
                            case .count: out.int(entry.count)
                            case .leaked: out.int(entry.leaked)
                            }
                        }
                    }
                case .trackingOff: out.bool(summary.trackingOff)
                case .tracking: out.string(summary.tracking)
                case .recordedObjects: out.int(summary.recordedObjects)
                case .trackingProblem:
                    if let problem = summary.trackingProblem { out.string(problem) } else { out.omitField() }
                }
            }
        }
        // Who keeps what alive alone, for each object's `keepsAlive`.
        let dominators = Dominators(snapshot, report: report, listsKeptObjects: false)
        // Each record of the big sections on a line of its own, for line-based tools.
        let objects = snapshot.objects
        let unreadKeys = DumpRecordKeys<DumpSchema.Unread>()
        // Both in id order: one cursor walks the unread records along the objects.
        let unread = snapshot.unreadReferences
        var unreadCursor = 0
        out.section(Top.objects, count: objects.count, keys: objectKeys) { index, field, out in
            switch field {
            case .id: out.int(objects[index].id)
            case .type: out.string(objects[index].type)
            case .label: out.optionalString(objects[index].label)
            case .strongRetainCount: out.optionalInt(objects[index].strongRetainCount)
            case .stack: out.optionalInt(objects[index].stack)
            case .time: out.seconds(objects[index].time)
            case .state: out.string(objects[index].state.rawValue)
            case .scope: out.int(objects[index].scope)
            case .leaked: out.bool(dominators.isLeaked(objectAt: index))
            case .processWide: out.bool(objects[index].isRecordedProcessWide)
            case .keepsAlive: out.int(dominators.keepsAlive(ofObjectAt: index))
            case .unread:
                let id = objects[index].id
                while unreadCursor < unread.count && unread[unreadCursor].object < id { unreadCursor += 1 }
                var end = unreadCursor
                while end < unread.count && unread[end].object == id { end += 1 }
                guard end > unreadCursor else {
                    out.omitField()
                    return
                }
                out.array(Array(unread[unreadCursor..<end])) { record, out in
                    out.record(record, keys: unreadKeys) { record, field, out in
                        switch field {
                        case .in: out.string(record.place)
                        case .why: out.string(record.why)
                        }
                    }
                }
                unreadCursor = end
            case .heldBy:
                guard !objects[index].heldByGlobals.isEmpty else {
                    out.omitField()
                    return
                }
                out.array(objects[index].heldByGlobals) { name, out in out.string(name) }
            case .outsideHolders:
                guard !objects[index].outsideHolders.isEmpty else {
                    out.omitField()
                    return
                }
                out.array(objects[index].outsideHolders) { name, out in out.string(name) }
            }
        }
        out.section(Top.edges, snapshot.edges, keys: edgeKeys) { edge, field, out in
            switch field {
            case .from: out.int(edge.from)
            case .to: out.int(edge.to)
            case .kind: out.string(edge.kind.rawValue)
            case .label: out.string(edge.label)
            case .origin: out.string(edge.origin.rawValue)
            case .count: out.int(edge.count)
            case .site: out.optionalInt(edge.site)
            case .closure: out.optionalString(edge.closure)
            }
        }
        out.section(Top.stacks, snapshot.stacks, keys: stackKeys) { stack, field, out in
            switch field {
            case .id: out.int(stack.id)
            case .frames: out.array(stack.frames) { frame, out in out.string(frame) }
            case .userFrame: out.optionalInt(stack.userFrame)
            }
        }
        out.section(Top.cycles, report.cycles, keys: cycleKeys) { cycle, field, out in
            switch field {
            case .objects: out.array(cycle.objects) { id, out in out.int(id) }
            case .leaked: out.bool(cycle.leaked)
            case .signature: out.string(cycle.signature)
            case .path:
                out.array(cycle.path) { step, out in
                    out.record(step, keys: stepKeys) { step, field, out in
                        switch field {
                        case .from: out.int(step.from)
                        case .to: out.int(step.to)
                        case .label: out.string(step.label)
                        }
                    }
                }
            case .loop: out.string(cycle.loopDescription)
            case .unexplainedHolders:
                out.array(cycle.unexplainedHolders) { holder, out in
                    out.record(holder, keys: holderKeys) { holder, field, out in
                        switch field {
                        case .object: out.int(holder.object)
                        case .unexplained: out.int(holder.unexplained)
                        case .knownHolders: out.array(holder.knownHolders) { id, out in out.int(id) }
                        }
                    }
                }
            case .libraryLeak:
                if let known = cycle.libraryLeak { out.string(known) } else { out.omitField() }
            }
        }
        out.section(Top.unknownOwners, report.unknownOwners, keys: ownerKeys, linePerRecord: false) {
            owner, field, out in
            switch field {
            case .object: out.int(owner.object)
            case .unexplained: out.int(owner.unexplained)
            case .reachesUnread: if owner.reachesUnreadMemory { out.bool(true) } else { out.omitField() }
            }
        }
        out.key(Top.neverFinished)
        out.array(report.neverFinished) { id, out in out.int(id) }
        out.key(Top.canNeverFinish)
        out.array(report.canNeverFinish) { id, out in out.int(id) }
        // Written whenever something was unread (empty included): a reader then knows the verdicts
        // were made, and does not make them again from the part of the graph this dump holds.
        if !report.possibleLeaks.isEmpty || !snapshot.unreadReferences.isEmpty {
            let leakKeys = DumpRecordKeys<DumpSchema.PossibleLeak>()
            let unreadAtKeys = DumpRecordKeys<DumpSchema.UnreadAt>()
            out.section(Top.possibleLeaks, report.possibleLeaks, keys: leakKeys, linePerRecord: false) {
                leak, field, out in
                switch field {
                case .cycle: out.optionalInt(leak.cycle)
                case .object: if let object = leak.object { out.int(object) } else { out.raw("null") }
                case .unexplained: out.int(leak.unexplained)
                case .unread:
                    out.array(leak.unread) { record, out in
                        out.record(record, keys: unreadAtKeys) { record, field, out in
                            switch field {
                            case .object: out.int(record.object)
                            case .in: out.string(record.place)
                            case .why: out.string(record.why)
                            }
                        }
                    }
                }
            }
        }
        if !snapshot.fieldDeclarations.isEmpty {
            let declarationKeys = DumpRecordKeys<DumpSchema.Declaration>()
            out.section(Top.declarations, snapshot.fieldDeclarations, keys: declarationKeys, linePerRecord: false) {
                declaration, field, out in
                switch field {
                case .type: out.string(declaration.type)
                case .field: out.string(declaration.field)
                case .file: out.string(declaration.file)
                case .line: out.int(declaration.line)
                case .text: out.string(declaration.text)
                case .dependency: out.bool(declaration.isInDependency ?? false)
                }
            }
        }
        out.raw("}\n")
    }
}
