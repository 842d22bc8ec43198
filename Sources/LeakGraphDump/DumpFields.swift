import Foundation
import LeakGraph
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where in the document a value is read, for error messages: `cycles[3].path[1].from`.
/// Fields are kept as indexes into their table: storing a `String` per field read costs a
/// retain and a release each time, a tenth of the reading time.
struct DumpLocation {
    var section = ""
    var index = -1
    var record = DumpRecord.none
    var field = -1
    var innerIndex = -1
    var innerRecord = DumpRecord.none
    var innerField = -1

    var description: String {
        var text = section
        if index >= 0 { text += "[\(index)]" }
        if field >= 0 { text += "." + record.fields.names[field] }
        if innerIndex >= 0 { text += "[\(innerIndex)]" }
        if innerField >= 0 { text += "." + innerRecord.fields.names[innerField] }
        return text.isEmpty ? "the top level" : text
    }
}

/// The kinds of record in a dump, each with its field table.
enum DumpRecord {
    case none, object, edge, stack, cycle, step, holder, owner, summary, typeCount, unread, possibleLeak, unreadAt,
        declaration

    var fields: DumpFieldTable {
        switch self {
        case .none: DumpFieldTable([])
        case .object: DumpFields.object.table
        case .summary: DumpFields.summary.table
        case .typeCount: DumpFields.typeCount.table
        case .edge: DumpFields.edge.table
        case .stack: DumpFields.stack.table
        case .cycle: DumpFields.cycle.table
        case .step: DumpFields.step.table
        case .holder: DumpFields.holder.table
        case .owner: DumpFields.owner.table
        case .unread: DumpFields.unread.table
        case .possibleLeak: DumpFields.possibleLeak.table
        case .unreadAt: DumpFields.unreadAt.table
        case .declaration: DumpFields.declaration.table
        }
    }
}

/// The fields of each record, as ``DumpParser`` matches them: built from the core's
/// ``DumpSchema``, the table the writer uses too.
enum DumpFields {
    static let top = DumpRecordFields<DumpSchema.Top>()
    static let object = DumpRecordFields<DumpSchema.Object>()
    static let edge = DumpRecordFields<DumpSchema.Edge>()
    static let stack = DumpRecordFields<DumpSchema.Stack>()
    static let cycle = DumpRecordFields<DumpSchema.Cycle>()
    static let step = DumpRecordFields<DumpSchema.Step>()
    static let holder = DumpRecordFields<DumpSchema.Holder>()
    static let owner = DumpRecordFields<DumpSchema.Owner>()
    static let unread = DumpRecordFields<DumpSchema.Unread>()
    static let possibleLeak = DumpRecordFields<DumpSchema.PossibleLeak>()
    static let unreadAt = DumpRecordFields<DumpSchema.UnreadAt>()
    static let declaration = DumpRecordFields<DumpSchema.Declaration>()
    static let summary = DumpRecordFields<DumpSchema.Summary>()
    static let typeCount = DumpRecordFields<DumpSchema.TypeCount>()
    static let kinds = DumpFieldTable(EdgeKind.allCases.map(\.rawValue))
    static let kindValues = EdgeKind.allCases
    static let origins = DumpFieldTable(EdgeOrigin.allCases.map(\.rawValue))
    static let originValues = EdgeOrigin.allCases
    static let states = DumpFieldTable(ObjectState.allCases.map(\.rawValue))
    static let stateValues = ObjectState.allCases
}

/// One record's field table and its fields by index.
struct DumpRecordFields<Field: DumpField>: Sendable {
    let table = DumpFieldTable(Field.names)
    let cases = Field.allCases

    /// The field at `index` of the table, or nil for a key the table does not have (-1).
    @inline(__always)
    func field(_ index: Int) -> Field? { index >= 0 ? cases[index] : nil }

    /// The table index of `field`.
    func index(of field: Field) -> Int { cases.firstIndex(of: field) ?? -1 }

    var names: [String] { table.names }
}
