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

/// Reads version 1 of the format with a ``DumpParser``, building the values as it goes.
struct DumpReader {
    /// The largest strong retain count accepted: far above any real count (the runtime keeps
    /// 30 bits), low enough that sums over millions of edges cannot overflow.
    static let maximumRetainCount = 1 << 40

    var parser: DumpParser
    var contents = DumpContents()
    var location = DumpLocation()
    let progress: ((Double) -> Void)?
    /// Gives back the pages of bytes already read (nil for bytes in memory).
    let consumed: PageReleaser?
    /// Where this reader's bytes start in the file (a worker reads a part of it).
    let fileOffset: Int
    /// Byte offset at which to report progress next.
    var nextReport = 0
    let reportStep: Int

    // Local copies: a `static let` is checked for initialisation at every use.
    // Copied once, not reached through a global per field: objects and edges are millions.
    let objectRecord = DumpFields.object
    let edgeRecord = DumpFields.edge
    let objectFields = DumpFields.object.table
    let edgeFields = DumpFields.edge.table
    let kinds = DumpFields.kinds
    let origins = DumpFields.origins
    let states = DumpFields.states

    /// A value error thrown by the reader itself, already worded.
    struct Invalid: Error {
        var problem: String
    }

    /// Either kind of failure, so one `catch` can word both.
    enum Failure: Error {
        case parse(DumpParseError)
        case invalid(String)
    }

    /// Whether big `objects` and `edges` sections may be read on threads of their own (see
    /// ``startObjectsWorker()``).
    let objectsInParallel: Bool
    /// The thread reading the `objects` section, while it runs.
    var objectsWorker: BackgroundResult<Result<ParsedObjects, Failure>>?
    /// The thread reading the `edges` section, while it runs.
    var edgesWorker: BackgroundResult<Result<[EdgeInfo], Failure>>?
    /// Whether this read handed a section to a worker.
    private(set) var readObjectsInParallel = false
    /// Where the workers' sections end: this reader gives back pages after it while they run.
    var releasableEnd = 0

    init(
        bytes: UnsafeRawBufferPointer, progress: ((Double) -> Void)?, consumed: PageReleaser?,
        objectsInParallel: Bool, fileOffset: Int = 0
    ) {
        parser = DumpParser(bytes)
        self.progress = progress
        self.consumed = consumed
        self.fileOffset = fileOffset
        self.objectsInParallel = objectsInParallel
        // About 1 % steps, but not so small that reporting shows up in the profile.
        reportStep = max(bytes.count / 100, 1 << 20)
        nextReport = reportStep
    }

    /// One line for `failure`, naming where it happened.
    func describe(_ failure: Failure) -> String {
        switch failure {
        case .invalid(let problem): return problem
        case .parse(let error):
            switch error.kind {
            case .syntax: return error.syntaxDescription
            case .value:
                if error.problem == "number out of range" {
                    return "number out of range at byte \(error.offset) (\(location.description))"
                }
                return "wrong type at \(location.description): \(error.problem) (byte \(error.offset))"
            }
        }
    }

    mutating func reportProgress() {
        guard parser.position >= nextReport else { return }
        nextReport = parser.position + reportStep
        progress?(Double(parser.position) / Double(max(parser.count, 1)))
        // While a worker reads the objects, this reader gives back only what comes after them
        // (nothing while it reads a section written before them, when format and version come last).
        let from = objectsWorker != nil || edgesWorker != nil ? releasableEnd : 0
        consumed?.release(from: fileOffset + from, upTo: fileOffset + parser.position)
    }

    /// A required field the current record lacks (its field index must already be reset).
    func missing(_ field: String) -> Failure {
        .invalid("missing required field \(location.description).\(field)")
    }

    /// A problem with the current record; `problem` starts with the field: `.count is 0, …`.
    func invalid(_ problem: String) -> Failure { .invalid(location.description + problem) }

    // MARK: Top level

    mutating func read() throws(Failure) {
        do {
            guard parser.atObject() else {
                // Say "not JSON" when it is not, and "not a dump" when it is some other JSON.
                try parser.skipValue()
                try parser.finish()
                throw Failure.invalid("is not a LeakGraph JSON dump: the top level is not a JSON object")
            }
            try parser.beginObject()
            // Sections met before the format and version are checked are parsed afterwards:
            // a newer version's sections may not follow this version's rules.
            var deferred: [(field: Int, offset: Int)] = []
            var seen = Set<Int>()
            var first = true
            var hint = 0
            while let field = try parser.nextField(DumpFields.top.table, first: &first, hint: hint) {
                hint = field + 1
                guard field >= 0 else {
                    try parser.skipValue()
                    continue
                }
                location = DumpLocation(section: DumpFields.top.names[field])
                guard seen.insert(field).inserted else {
                    throw Failure.invalid(
                        "is not a valid LeakGraph dump: field \"\(DumpFields.top.names[field])\" appears twice")
                }
                switch DumpFields.top.field(field) {
                case .format?:
                    let format = try parser.string()
                    guard format == DumpSchema.formatName else {
                        // debugDescription quotes and escapes it, keeping the message on one line.
                        throw Failure.invalid(
                            "has format \(format.debugDescription), expected \"\(DumpSchema.formatName)\"")
                    }
                    contents.format = format
                case .version?:
                    let version = try parser.int()
                    guard version <= DumpSchema.version else {
                        throw Failure.invalid(
                            "is dump version \(version), newer than this tool reads (\(DumpSchema.version)); update LeakGraph"
                        )
                    }
                    guard version >= 1 else { throw Failure.invalid("has invalid version \(version)") }
                    contents.version = version
                case .pid?:
                    if try !parser.null() {
                        let start = parser.position
                        guard let pid = Int32(exactly: try parser.int()) else {
                            throw Failure.parse(
                                DumpParseError(kind: .value, offset: start, problem: "number out of range"))
                        }
                        contents.processID = pid
                    }
                case .time?:
                    if try !parser.null() { contents.time = try parser.double() }
                default:
                    if contents.format != nil && contents.version != nil {
                        try readSection(field)
                    } else {
                        let offset = parser.position
                        try parser.skipValue()
                        deferred.append((field, offset))
                    }
                }
            }
            try parser.finish()
            location = DumpLocation()
            guard contents.format != nil else {
                throw Failure.invalid("is not a LeakGraph JSON dump: missing field \"format\"")
            }
            guard contents.version != nil else {
                throw Failure.invalid("is not a LeakGraph dump: missing field \"version\"")
            }
            for (field, offset) in deferred {
                parser.position = offset
                location = DumpLocation(section: DumpFields.top.names[field])
                try readSection(field)
            }
            location = DumpLocation()
            if let worker = objectsWorker {
                objectsWorker = nil
                switch worker.value {
                case .success(let objects):
                    contents.objects = objects.objects
                    contents.unread = objects.unread
                    contents.leakedFlags = objects.leakedFlags
                    contents.leakedSet = objects.leakedSet
                    contents.objectsAscending = objects.ascending
                case .failure: throw Failure.invalid("the objects section could not be read")
                }
            }
            if let worker = edgesWorker {
                edgesWorker = nil
                switch worker.value {
                case .success(let edges): contents.edges = edges
                case .failure: throw Failure.invalid("the edges section could not be read")
                }
            }
            guard seen.contains(DumpFields.top.index(of: .objects)) else {
                throw Failure.invalid("is not a valid LeakGraph dump: missing field \"objects\"")
            }
            guard seen.contains(DumpFields.top.index(of: .edges)) else {
                throw Failure.invalid("is not a valid LeakGraph dump: missing field \"edges\"")
            }
        } catch let error as DumpParseError {
            throw .parse(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw .invalid("is not a valid LeakGraph dump")
        }
    }

    mutating func readSection(_ field: Int) throws(Failure) {
        // Optional sections may be null, which reads as absent (as JSONDecoder's optionals did).
        let section = DumpFields.top.field(field)
        if section != .objects && section != .edges, try parse({ () throws(DumpParseError) in try parser.null() }) {
            return
        }
        switch section {
        case .objects?:
            if objectsInParallel, startObjectsWorker() { return }
            try readArray { reader throws(Failure) in try reader.readObject() }
        case .edges?:
            // Sized once from the summary (written before the edges): growing the array by
            // doubling copied it and touched twice its memory (a 400,000-object dump: 16 % of
            // the read's page faults).
            if objectsInParallel, startEdgesWorker() { return }
            let expectedEdges = expectedRecords(contents.summary?.writtenEdges, shortest: 20)
            contents.edges.reserveCapacity(expectedEdges)
            try readArray { reader throws(Failure) in try reader.readEdge() }
        case .stacks?: try readArray { reader throws(Failure) in try reader.readStack() }
        case .cycles?:
            // Cycles are disjoint: at most one per object written.
            var cycles: [Cycle] = []
            cycles.reserveCapacity(expectedRecords(contents.summary?.writtenObjects, shortest: 60))
            contents.cycles = cycles
            try readArray { reader throws(Failure) in try reader.readCycle() }
        case .unknownOwners?:
            contents.unknownOwners = []
            try readArray { reader throws(Failure) in try reader.readOwner() }
        case .possibleLeaks?:
            contents.possibleLeaks = []
            try readArray { reader throws(Failure) in try reader.readPossibleLeak() }
        case .declarations?:
            try readArray { reader throws(Failure) in try reader.readDeclaration() }
        case .summary?: try readSummary()
        case .neverFinished?:
            try readArray { reader throws(Failure) in reader.contents.neverFinished.append(try reader.listedID()) }
        case .canNeverFinish?:
            try readArray { reader throws(Failure) in reader.contents.canNeverFinish.append(try reader.listedID()) }
        default: break
        }
    }

    /// Hands a big `objects` section to a thread of its own and moves past it: true when it did.
    ///
    /// Writers put each record of a big section on a line of its own (`[`, then `\n{…},` per
    /// record, the last one ending `}],` before the next section's key on a new line), and a JSON
    /// string cannot hold a raw newline: so the section ends at the first line that does not
    /// start a record. The worker reads the objects while this reader goes on with the edges (on
    /// a worker of their own too), stacks and cycles (Tools/Benchmarks/README.md has the
    /// figures). The worker checks that it read exactly one array, which makes the split right or
    /// the read fail; any problem in either part makes the caller read the file again in one
    /// pass, so errors are worded as before.
    mutating func startObjectsWorker() -> Bool {
        guard let split = splitRecordSection() else { return false }
        objectsWorker = BackgroundResult { DumpReader.readObjects(split) }
        return true
    }

    /// Hands a big `edges` section to a thread of its own, as ``startObjectsWorker()`` does the
    /// objects: the reader goes on with the stacks and cycles meanwhile. Three threads read a
    /// dump then, each about a third of it (a 400,000-object dump: the objects 41 % of its bytes,
    /// the edges 27 %, the cycles 31 %), where the reader alone read the edges and the cycles
    /// while the objects' worker waited for it for a fifth of a second.
    mutating func startEdgesWorker() -> Bool {
        guard let split = splitRecordSection() else { return false }
        edgesWorker = BackgroundResult { DumpReader.readEdges(split) }
        return true
    }

    /// The big record section starting at the reader's position, laid out one record per line,
    /// and this reader moved past it: its bytes, where they start in the file, and how many
    /// records to make room for. Nil (the reader where it was) for a small section or another
    /// layout.
    private mutating func splitRecordSection() -> SplitSection? {
        let start = parser.position
        guard parser.count - start >= ParallelLoading.minimumObjectsBytes.load(ordering: .relaxed),
            parser.byte(at: start) == UInt8(ascii: "["), parser.byte(at: start + 1) == 0x0A,
            let base = parser.base
        else { return nil }
        // One memchr per record line, to the first line that does not start a record.
        var offset = start + 1
        var end = -1
        var recordLines = 0
        while let newline = memchr(base + offset, 0x0A, parser.count - offset) {
            let at = base.distance(to: UnsafeRawPointer(newline))
            if parser.byte(at: at + 1) == UInt8(ascii: "{") {
                offset = at + 1
                recordLines += 1
                continue
            }
            if parser.byte(at: at - 1) == UInt8(ascii: ","), parser.byte(at: at - 2) == UInt8(ascii: "]") {
                end = at - 1  // just past the `]`
            }
            break
        }
        guard end > start else { return nil }
        readObjectsInParallel = true
        releasableEnd = max(releasableEnd, end)
        ParallelLoading.workersStarted.add(1, ordering: .relaxed)
        let section = SendableBytes(UnsafeRawBufferPointer(start: base + start, count: end - start))
        let depth = parser.depth
        parser.position = end
        // At most what the section's bytes can hold (the shortest record and its separator take
        // about 20): a file of bare `{` lines must not reserve gigabytes before the parse rejects it.
        return SplitSection(
            bytes: section, fileOffset: fileOffset + start, depth: depth,
            expectedCount: min(recordLines, (end - start) / 20), consumed: consumed)
    }

    /// A big section split off for a worker (``splitRecordSection()``).
    struct SplitSection: Sendable {
        let bytes: SendableBytes
        /// Where the section starts in the file (for error offsets and page release).
        let fileOffset: Int
        /// The one-pass reader's nesting depth there, so that the nesting limit falls in the same place.
        let depth: Int
        /// The record lines seen when the section was split: the arrays are sized once (growing
        /// them by doubling copied and touched twice the memory).
        let expectedCount: Int
        let consumed: PageReleaser?

        /// Reads the section's whole array, `section`'s records, with `record` after `prepare`
        /// (which sizes the arrays): the reader that read it, or the failure. The array must end
        /// the section, which makes the split right or the read fail.
        func read(
            _ section: DumpSchema.Top, prepare: (inout DumpReader) -> Void,
            record: (inout DumpReader) throws(Failure) -> Void
        ) -> Result<DumpReader, Failure> {
            var reader = DumpReader(
                bytes: bytes.bytes, progress: nil, consumed: consumed, objectsInParallel: false, fileOffset: fileOffset)
            prepare(&reader)
            reader.parser.depth = depth
            reader.location = DumpLocation(section: DumpFields.top.names[DumpFields.top.index(of: section)])
            do throws(Failure) {
                try reader.readArray(record)
                guard reader.parser.position == bytes.bytes.count else { throw Failure.invalid("trailing bytes") }
            } catch {
                return .failure(error)
            }
            return .success(reader)
        }
    }

    /// How many records of a section starting here to make room for: `written` (a count the
    /// summary gave), but never more than the bytes left could hold at `shortest` bytes a record,
    /// so that a hostile summary cannot reserve gigabytes before the parse rejects the file.
    func expectedRecords(_ written: Int?, shortest: Int) -> Int {
        guard let written, written > 0 else { return 0 }
        return min(written, (parser.count - parser.position) / shortest)
    }

    /// Reads a whole `objects` section (the objects' worker's job).
    fileprivate static func readObjects(_ split: SplitSection) -> Result<ParsedObjects, Failure> {
        split.read(.objects) {
            $0.contents.objects.reserveCapacity(split.expectedCount)
        } record: { reader throws(Failure) in
            try reader.readObject()
        }.map { reader in
            // The set of leaked ids is made here too: this thread finishes before the reader does.
            ParsedObjects(
                objects: reader.contents.objects, unread: reader.contents.unread,
                leakedFlags: reader.contents.leakedFlags,
                leakedSet: Set(reader.contents.leakedFlags), ascending: reader.contents.objectsAscending)
        }
    }

    /// Reads a whole `edges` section (the edges' worker's job).
    fileprivate static func readEdges(_ split: SplitSection) -> Result<[EdgeInfo], Failure> {
        split.read(.edges) {
            $0.contents.edges.reserveCapacity(split.expectedCount)
        } record: { reader throws(Failure) in
            try reader.readEdge()
        }.map(\.contents.edges)
    }

    /// Waits for the workers, if any run (before the bytes they read go away).
    mutating func finishObjects() {
        _ = objectsWorker?.value
        objectsWorker = nil
        _ = edgesWorker?.value
        edgesWorker = nil
    }

    /// Reads an array of records, calling `element` with the location set to each index.
    mutating func readArray(_ element: (inout DumpReader) throws(Failure) -> Void) throws(Failure) {
        let section = location.section
        do {
            try parser.beginArray()
        } catch {
            throw .parse(error)
        }
        var first = true
        var index = 0
        location = DumpLocation(section: section)
        while true {
            // Integers only: rebuilding the location would retain and release `section` per record.
            location.index = -1
            location.field = -1
            location.innerIndex = -1
            location.innerField = -1
            do {
                guard try parser.nextElement(first: &first) else { break }
            } catch {
                throw .parse(error)
            }
            location.index = index
            try element(&self)
            index += 1
            if parser.position >= nextReport { reportProgress() }
        }
    }
}
