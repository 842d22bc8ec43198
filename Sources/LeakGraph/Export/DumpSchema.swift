/// The LeakGraph JSON dump format: the one table of names that its writer (``JSONExporter``)
/// and its reader (the `LeakGraphDump` module) both use, so that the two cannot drift apart.
///
/// Each record's fields are listed in the order the writer emits them; the reader accepts any
/// order and skips fields it does not know (dumps of newer writers of the same version load).
package enum DumpSchema {
    /// The value of the top-level `format` field.
    package static let formatName = "leakgraph"
    /// The version this library writes and the newest it reads.
    package static let version = 1

    /// The top-level fields.
    package enum Top: String, DumpField {
        case format, version, pid, time, summary, objects, edges, stacks, cycles, unknownOwners, neverFinished,
            canNeverFinish, possibleLeaks, declarations
    }

    /// The fields of an entry of `declarations` (where a field a cycle goes through is declared).
    package enum Declaration: String, DumpField {
        case type, field, file, line, text, dependency
    }

    /// The fields of the top-level `summary` (what was alive, what was written).
    package enum Summary: String, DumpField {
        case contents, liveObjects, liveEdges, writtenObjects, writtenEdges, types, trackingOff, tracking,
            recordedObjects,
            trackingProblem
    }

    /// The fields of an entry of the summary's `types`.
    package enum TypeCount: String, DumpField {
        case type, count, leaked
    }

    /// The fields of an entry of `objects`.
    package enum Object: String, DumpField {
        case id, type, label, strongRetainCount, stack, time, state, scope, leaked, processWide, keepsAlive, unread,
            heldBy, outsideHolders
    }

    /// The fields of an entry of an object's `unread` (written only for objects whose memory held
    /// references discovery could not type).
    package enum Unread: String, DumpField {
        case `in`, why
    }

    /// The fields of an entry of `edges`.
    package enum Edge: String, DumpField {
        case from, to, kind, label, origin, count, site, closure
    }

    /// The fields of an entry of `stacks`.
    package enum Stack: String, DumpField {
        case id, frames, userFrame
    }

    /// The fields of an entry of `cycles`.
    package enum Cycle: String, DumpField {
        case objects, leaked, signature, path, loop, unexplainedHolders, libraryLeak
    }

    /// The fields of a step of a cycle's `path`.
    package enum Step: String, DumpField {
        case from, to, label
    }

    /// The fields of an entry of a cycle's `unexplainedHolders`.
    package enum Holder: String, DumpField {
        case object, unexplained, knownHolders
    }

    /// The fields of an entry of `unknownOwners` (`reachesUnread` only when true).
    package enum Owner: String, DumpField {
        case object, unexplained, reachesUnread
    }

    /// The fields of an entry of `possibleLeaks`: a cycle (its position in `cycles`) or an object
    /// in no cycle, and the unread memory it reaches (written only when there are some).
    package enum PossibleLeak: String, DumpField {
        case cycle, object, unexplained, unread
    }

    /// The fields of an entry of a possible leak's `unread`.
    package enum UnreadAt: String, DumpField {
        case object, `in`, why
    }
}

/// A field of one kind of dump record: its JSON name is its raw value, and its cases are in
/// the order the writer emits them.
package protocol DumpField: CaseIterable, Hashable, RawRepresentable, Sendable
where RawValue == String, AllCases == [Self] {}

extension DumpField {
    /// The fields' names, in writing order.
    package static var names: [String] { allCases.map(\.rawValue) }
}
