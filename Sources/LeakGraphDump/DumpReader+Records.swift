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

/// The records of each section: objects, edges, stacks, cycles and the rest.
extension DumpReader {
    mutating func id() throws(DumpParseError) -> UInt64 {
        let start = parser.position
        let value = try parser.int()
        // `int()` already refuses anything above Int64.max.
        guard value >= 0 else {
            throw DumpParseError(kind: .value, offset: start, problem: "expected an id, found a negative number")
        }
        return UInt64(value)
    }

    mutating func optionalInt() throws(DumpParseError) -> Int? {
        if try parser.null() { return nil }
        return try parser.int()
    }

    mutating func idList() throws(DumpParseError) -> [UInt64] {
        try parser.beginArray()
        var ids: [UInt64] = []
        var first = true
        while try parser.nextElement(first: &first) {
            location.innerIndex = ids.count
            ids.append(try id())
        }
        location.innerIndex = -1
        return ids
    }

    mutating func readObject() throws(Failure) {
        location.record = .object
        var id: UInt64?
        var type: String?
        var label: String?
        var retainCount: Int?
        var stack: Int?
        var time = 0.0
        var state = ObjectState.unspecified
        var scope: UInt32 = 0
        var leaked = false
        var processWide = false
        var unread: [UnreadReferenceInfo] = []
        var heldBy: [String] = []
        var outsideHolders: [String] = []
        do throws(DumpParseError) {
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(objectFields, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch objectRecord.field(field) {
                case .id?: id = try self.id()
                case .type?: type = try parser.string()
                case .label?: label = try parser.optionalString()
                case .strongRetainCount?: retainCount = try optionalInt()
                case .stack?: stack = try optionalInt()
                case .time?: time = try parser.null() ? 0 : try parser.double()
                case .state?:
                    if try !parser.null() {
                        var other = ""
                        let index = try parser.oneOf(states, unmatched: &other)
                        // Unknown states from newer writers read as unspecified, as before.
                        state = index >= 0 ? DumpFields.stateValues[index] : .unspecified
                    }
                case .scope?:
                    if try !parser.null() {
                        let start = parser.position
                        guard let value = UInt32(exactly: try parser.int()) else {
                            throw DumpParseError(kind: .value, offset: start, problem: "number out of range")
                        }
                        scope = value
                    }
                case .leaked?: leaked = try parser.null() ? false : try parser.bool()
                case .processWide?: processWide = try parser.null() ? false : try parser.bool()
                case .unread?: if try !parser.null() { unread = try readUnread() }
                case .heldBy?: if try !parser.null() { heldBy = try strings() }
                case .outsideHolders?: if try !parser.null() { outsideHolders = try strings() }
                default: try parser.skipValue()
                }
            }
        } catch {
            throw .parse(error)
        }
        location.field = -1
        guard let id else { throw missing("id") }
        for index in unread.indices { unread[index].object = id }
        contents.unread += unread
        guard let type else { throw missing("type") }
        if let retainCount, retainCount < 0 || retainCount > Self.maximumRetainCount {
            throw invalid(".strongRetainCount is \(retainCount), outside 0…\(Self.maximumRetainCount)")
        }
        if let last = contents.objects.last, last.id >= id { contents.objectsAscending = false }
        var object = ObjectInfo(
            id: id, type: type, label: label, strongRetainCount: retainCount, stack: stack, time: time, state: state,
            scope: scope)
        object.isRecordedProcessWide = processWide
        object.heldByGlobals = heldBy
        object.outsideHolders = outsideHolders
        contents.objects.append(object)
        if leaked { contents.leakedFlags.append(id) }
    }

    /// An array of strings (a stack's frames, an object's `heldBy`), each element's index kept in
    /// the location for errors.
    mutating func strings() throws(DumpParseError) -> [String] {
        try parser.beginArray()
        var list: [String] = []
        var first = true
        while try parser.nextElement(first: &first) {
            location.innerIndex = list.count
            list.append(try parser.string())
        }
        location.innerIndex = -1
        return list
    }

    /// An object's `unread` records (their `object` is filled in by the caller).
    mutating func readUnread() throws(DumpParseError) -> [UnreadReferenceInfo] {
        try parser.beginArray()
        var records: [UnreadReferenceInfo] = []
        var first = true
        while try parser.nextElement(first: &first) {
            location.innerIndex = records.count
            location.innerRecord = .unread
            var place: String?
            var why: String?
            try parser.beginObject()
            var firstField = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.unread.table, first: &firstField, hint: hint) {
                hint = field + 1
                location.innerField = field
                switch DumpFields.unread.field(field) {
                case .in?: place = try parser.string()
                case .why?: why = try parser.string()
                default: try parser.skipValue()
                }
            }
            location.innerField = -1
            records.append(UnreadReferenceInfo(object: 0, place: place ?? "?", why: why ?? "?"))
        }
        location.innerIndex = -1
        return records
    }

    mutating func readEdge() throws(Failure) {
        location.record = .edge
        var from: UInt64?
        var to: UInt64?
        var kind: EdgeKind?
        var label: String?
        var origin = EdgeOrigin.declared
        var count = 1
        var site: Int?
        var closure: String?
        var unknownKind = ""
        do throws(DumpParseError) {
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(edgeFields, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch edgeRecord.field(field) {
                case .from?: from = try id()
                case .to?: to = try id()
                case .kind?:
                    let index = try parser.oneOf(kinds, unmatched: &unknownKind)
                    kind = index >= 0 ? DumpFields.kindValues[index] : nil
                case .label?: label = try parser.string()
                case .origin?:
                    if try !parser.null() {
                        var other = ""
                        let index = try parser.oneOf(origins, unmatched: &other)
                        origin = index >= 0 ? DumpFields.originValues[index] : .declared
                    }
                case .count?: count = try optionalInt() ?? 1
                case .site?: site = try optionalInt()
                case .closure?: closure = try parser.optionalString()
                default: try parser.skipValue()
                }
            }
        } catch {
            throw .parse(error)
        }
        location.field = -1
        guard let from else { throw missing("from") }
        guard let to else { throw missing("to") }
        guard let kind else {
            if unknownKind.isEmpty { throw missing("kind") }
            throw invalid(".kind is \(unknownKind.debugDescription), expected strong, weak, unowned or unknown")
        }
        guard let label else { throw missing("label") }
        guard count >= 1 else { throw invalid(".count is \(count), expected at least 1") }
        contents.edges.append(
            EdgeInfo(
                from: from, to: to, kind: kind, label: label, origin: origin, count: count, site: site, closure: closure
            ))
    }

    mutating func readStack() throws(Failure) {
        location.record = .stack
        var id: Int?
        var frames: [String]?
        var userFrame: Int?
        do throws(DumpParseError) {
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.stack.table, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch DumpFields.stack.field(field) {
                case .id?: id = try parser.int()
                case .frames?: frames = try strings()
                case .userFrame?: userFrame = try optionalInt()
                default: try parser.skipValue()
                }
            }
        } catch {
            throw .parse(error)
        }
        location.field = -1
        guard let id else { throw missing("id") }
        guard let frames else { throw missing("frames") }
        if let userFrame, userFrame < 0 || userFrame >= frames.count {
            throw invalid(".userFrame is \(userFrame), outside its \(frames.count) frame(s)")
        }
        contents.stacks.append(StackInfo(id: id, frames: frames, userFrame: userFrame))
    }

    mutating func readCycle() throws(Failure) {
        location.record = .cycle
        var objects: [UInt64]?
        var leaked: Bool?
        var signature: String?
        var path: [Cycle.PathStep]?
        var loop: String?
        var holders: [Cycle.Holder] = []
        var libraryLeak: String?
        try parse { () throws(DumpParseError) in try parser.beginObject() }
        var first = true
        var hint = 0
        while let field = try parse({ () throws(DumpParseError) in
            try parser.nextField(DumpFields.cycle.table, first: &first, hint: hint)
        }) {
            hint = field + 1
            location.field = field
            switch DumpFields.cycle.field(field) {
            case .objects?: objects = try parse { () throws(DumpParseError) in try idList() }
            case .leaked?: leaked = try parse { () throws(DumpParseError) in try parser.bool() }
            case .signature?: signature = try parse { () throws(DumpParseError) in try parser.string() }
            case .path?: path = try readSteps()
            case .loop?: loop = try parse { () throws(DumpParseError) in try parser.optionalString() }
            case .unexplainedHolders?:
                if try !parse({ () throws(DumpParseError) in try parser.null() }) { holders = try readHolders() }
            case .libraryLeak?:
                libraryLeak = try parse { () throws(DumpParseError) in try parser.optionalString() }
            default: try parse { () throws(DumpParseError) in try parser.skipValue() }
            }
        }
        location.field = -1
        guard let objects else { throw missing("objects") }
        guard let leaked else { throw missing("leaked") }
        guard let signature else { throw missing("signature") }
        guard let path else { throw missing("path") }
        var cycle = Cycle(
            objects: objects, leaked: leaked, signature: signature, path: path, loopDescription: loop ?? signature,
            unexplainedHolders: holders)
        cycle.libraryLeak = libraryLeak
        contents.cycles?.append(cycle)
    }

    mutating func readSteps() throws(Failure) -> [Cycle.PathStep] {
        try parse { () throws(DumpParseError) in try parser.beginArray() }
        var steps: [Cycle.PathStep] = []
        var first = true
        while try parse({ () throws(DumpParseError) in try parser.nextElement(first: &first) }) {
            location.innerIndex = steps.count
            location.innerRecord = .step
            var from: UInt64?
            var to: UInt64?
            var label: String?
            try parse { () throws(DumpParseError) in
                try parser.beginObject()
                var firstField = true
                var hint = 0
                while let field = try parser.nextField(DumpFields.step.table, first: &firstField, hint: hint) {
                    hint = field + 1
                    location.innerField = field
                    switch DumpFields.step.field(field) {
                    case .from?: from = try id()
                    case .to?: to = try id()
                    case .label?: label = try parser.string()
                    default: try parser.skipValue()
                    }
                }
            }
            location.innerField = -1
            guard let from else { throw missing("from") }
            guard let to else { throw missing("to") }
            guard let label else { throw missing("label") }
            steps.append(Cycle.PathStep(from: from, to: to, label: label))
        }
        location.innerIndex = -1
        return steps
    }

    mutating func readHolders() throws(Failure) -> [Cycle.Holder] {
        try parse { () throws(DumpParseError) in try parser.beginArray() }
        var holders: [Cycle.Holder] = []
        var first = true
        while try parse({ () throws(DumpParseError) in try parser.nextElement(first: &first) }) {
            location.innerIndex = holders.count
            location.innerRecord = .holder
            var object: UInt64?
            var unexplained: Int?
            var known: [UInt64]?
            try parse { () throws(DumpParseError) in
                try parser.beginObject()
                var firstField = true
                var hint = 0
                while let field = try parser.nextField(DumpFields.holder.table, first: &firstField, hint: hint) {
                    hint = field + 1
                    location.innerField = field
                    switch DumpFields.holder.field(field) {
                    case .object?: object = try id()
                    case .unexplained?: unexplained = try parser.int()
                    case .knownHolders?:
                        // The ids are the third level; their index is not worth a fourth.
                        let index = location.innerIndex
                        known = try idList()
                        location.innerIndex = index
                    default: try parser.skipValue()
                    }
                }
            }
            location.innerField = -1
            guard let object else { throw missing("object") }
            guard let unexplained else { throw missing("unexplained") }
            guard let known else { throw missing("knownHolders") }
            guard unexplained >= 0 else {
                throw .invalid("\(location.description).unexplained is \(unexplained), expected at least 0")
            }
            holders.append(Cycle.Holder(object: object, unexplained: unexplained, knownHolders: known))
        }
        location.innerIndex = -1
        return holders
    }

    mutating func readSummary() throws(Failure) {
        location.record = .summary
        var summary = LeakGraphDump.Summary(
            contents: "", liveObjects: -1, liveEdges: -1, writtenObjects: -1, writtenEdges: -1, types: [])
        try parse { () throws(DumpParseError) in
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.summary.table, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch DumpFields.summary.field(field) {
                case .contents?: summary.contents = try parser.string()
                case .liveObjects?: summary.liveObjects = try parser.int()
                case .liveEdges?: summary.liveEdges = try parser.int()
                case .writtenObjects?: summary.writtenObjects = try parser.int()
                case .writtenEdges?: summary.writtenEdges = try parser.int()
                case .types?: summary.types = try readTypeCounts()
                case .trackingOff?: summary.trackingOff = try parser.bool()
                case .tracking?: summary.tracking = try parser.string()
                case .recordedObjects?: summary.recordedObjects = try parser.int()
                case .trackingProblem?: summary.trackingProblem = try parser.string()
                default: try parser.skipValue()
                }
            }
        }
        location.field = -1
        for (name, value) in [
            ("liveObjects", summary.liveObjects), ("liveEdges", summary.liveEdges),
            ("writtenObjects", summary.writtenObjects), ("writtenEdges", summary.writtenEdges),
        ] where value < 0 {
            throw value == -1 ? missing(name) : invalid(".\(name) is \(value), expected at least 0")
        }
        guard summary.contents == "cycles" || summary.contents == "full" else {
            throw invalid(".contents is \"\(summary.contents)\", expected \"cycles\" or \"full\"")
        }
        contents.summary = summary
    }

    mutating func readTypeCounts() throws(DumpParseError) -> [LeakGraphDump.Summary.TypeCount] {
        var counts: [LeakGraphDump.Summary.TypeCount] = []
        try parser.beginArray()
        var first = true
        location.innerRecord = .typeCount
        while try parser.nextElement(first: &first) {
            location.innerIndex = counts.count
            var entry = LeakGraphDump.Summary.TypeCount(type: "", count: 0, leaked: 0)
            try parser.beginObject()
            var firstField = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.typeCount.table, first: &firstField, hint: hint) {
                hint = field + 1
                location.innerField = field
                switch DumpFields.typeCount.field(field) {
                case .type?: entry.type = try parser.string()
                case .count?: entry.count = try parser.int()
                case .leaked?: entry.leaked = try parser.int()
                default: try parser.skipValue()
                }
            }
            location.innerField = -1
            counts.append(entry)
        }
        location.innerIndex = -1
        return counts
    }

    /// One id of a top-level list of ids.
    mutating func listedID() throws(Failure) -> UInt64 {
        do {
            return try id()
        } catch {
            throw .parse(error)
        }
    }

    mutating func readOwner() throws(Failure) {
        location.record = .owner
        var object: UInt64?
        var unexplained: Int?
        var reachesUnread = false
        try parse { () throws(DumpParseError) in
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.owner.table, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch DumpFields.owner.field(field) {
                case .object?: object = try id()
                case .unexplained?: unexplained = try parser.int()
                case .reachesUnread?: reachesUnread = try parser.null() ? false : try parser.bool()
                default: try parser.skipValue()
                }
            }
        }
        location.field = -1
        guard let object else { throw missing("object") }
        guard let unexplained else { throw missing("unexplained") }
        guard unexplained >= 1 else { throw invalid(".unexplained is \(unexplained), expected at least 1") }
        var owner = UnknownOwner(object: object, unexplained: unexplained)
        owner.reachesUnreadMemory = reachesUnread
        contents.unknownOwners?.append(owner)
    }

    mutating func readDeclaration() throws(Failure) {
        location.record = .declaration
        var declaration = FieldDeclaration(type: "", field: "", file: "", line: 0, text: "")
        try parse { () throws(DumpParseError) in
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.declaration.table, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch DumpFields.declaration.field(field) {
                case .type?: declaration.type = try parser.string()
                case .field?: declaration.field = try parser.string()
                case .file?: declaration.file = try parser.string()
                case .line?: declaration.line = try parser.int()
                case .text?: declaration.text = try parser.string()
                case .dependency?: declaration.isInDependency = try parser.bool()
                default: try parser.skipValue()
                }
            }
        }
        location.field = -1
        guard !declaration.type.isEmpty, !declaration.field.isEmpty, declaration.line > 0 else {
            throw invalid(": a declaration needs its type, field and a line of at least 1")
        }
        contents.declarations.append(declaration)
    }

    mutating func readPossibleLeak() throws(Failure) {
        location.record = .possibleLeak
        var cycle: Int?
        var object: UInt64?
        var unexplained = 0
        var unread: [UnreadReferenceInfo] = []
        try parse { () throws(DumpParseError) in
            try parser.beginObject()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.possibleLeak.table, first: &first, hint: hint) {
                hint = field + 1
                location.field = field
                switch DumpFields.possibleLeak.field(field) {
                case .cycle?: cycle = try parser.null() ? nil : try parser.int()
                case .object?: object = try parser.null() ? nil : try id()
                case .unexplained?: unexplained = try parser.int()
                case .unread?:
                    try parser.beginArray()
                    var firstRecord = true
                    while try parser.nextElement(first: &firstRecord) {
                        location.innerIndex = unread.count
                        location.innerRecord = .unreadAt
                        var record = UnreadReferenceInfo(object: 0, place: "?", why: "?")
                        try parser.beginObject()
                        var firstField = true
                        var innerHint = 0
                        while let inner = try parser.nextField(
                            DumpFields.unreadAt.table, first: &firstField, hint: innerHint)
                        {
                            innerHint = inner + 1
                            location.innerField = inner
                            switch DumpFields.unreadAt.field(inner) {
                            case .object?: record.object = try id()
                            case .in?: record.place = try parser.string()
                            case .why?: record.why = try parser.string()
                            default: try parser.skipValue()
                            }
                        }
                        location.innerField = -1
                        unread.append(record)
                    }
                    location.innerIndex = -1
                default: try parser.skipValue()
                }
            }
        }
        location.field = -1
        guard (cycle == nil) != (object == nil) else { throw invalid(": exactly one of cycle and object is expected") }
        if let cycle {
            contents.possibleLeaks?.append(PossibleLeak(cycle: cycle, unexplained: unexplained, unread: unread))
        } else if let object {
            contents.possibleLeaks?.append(PossibleLeak(object: object, unexplained: unexplained, unread: unread))
        }
    }
}
