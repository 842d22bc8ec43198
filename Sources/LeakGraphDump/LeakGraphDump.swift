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

/// A JSON dump read back from disk: the snapshot plus the cycles recorded when it was written.
///
/// ```swift
/// let dump = try LeakGraphDump(contentsOf: "leakgraph-out/leakgraph-123.json")
/// print(dump.cycles.filter(\.leaked).count)
/// // 1
/// ```
///
/// Reading checks the whole file: JSON syntax, the format name and version, every field's type,
/// and that every id, stack and count the file mentions makes sense; the first problem found is
/// thrown as a ``DumpError``. Fields this version does not know are skipped, so dumps from newer
/// writers of the same version still load.
///
/// Cost: one pass over the file with a hand-written byte-level parser. In a release build,
/// a 526 MB dump of 1,000,000 objects, 2,000,000 edges and 500,000 cycles loads in about 1.4 s
/// with a 460 MB peak resident set (JSONDecoder took 21 s and 2.7 GB).
/// The result is plain `Sendable` data.
public struct LeakGraphDump: Sendable {
    /// The graph.
    public var snapshot: GraphSnapshot
    /// The cycles as written (recomputed with ``LeakDetector`` when the file has none).
    public var cycles: [Cycle]
    /// Leaked object ids as written.
    public var leakedObjectIDs: Set<UInt64>
    /// Objects held by references the graph does not show, as written (recomputed with
    /// ``LeakDetector`` when the file has no `cycles` or no `unknownOwners`).
    public var unknownOwners: [UnknownOwner]
    /// Active objects something outside could still send events to, as written (empty for
    /// dumps written before the field existed; see ``LeakReport/neverFinished``).
    public var neverFinished: [UInt64] = []
    /// Active objects nothing outside can ever send an event, as written (see
    /// ``LeakReport/canNeverFinish``).
    public var canNeverFinish: [UInt64] = []
    /// The writing process's id, when recorded.
    public var processID: Int32?
    /// What was alive when the dump was written and how much of it the file holds, when
    /// recorded (dumps written at exit and by `LeakGraph.writeDump` have one).
    public var summary: Summary?

    /// The top of a dump: how much was alive, how much was written, and every live object
    /// counted by type. A dump of cycles only (`LEAKGRAPH_DUMP` unset) counts here the objects
    /// it does not hold.
    public struct Summary: Sendable, Hashable {
        /// `cycles` (the cycles and what they hold) or `full` (every live object).
        public var contents: String
        /// Live objects and edges when the dump was written.
        public var liveObjects: Int
        public var liveEdges: Int
        /// Objects and edges the file holds.
        public var writtenObjects: Int
        public var writtenEdges: Int
        /// Every live type: its count and how many of them leaked, most numerous first.
        public var types: [TypeCount]
        /// Tracking was never on in the process that wrote the dump (`LEAKGRAPH=off`, the
        /// `LeakGraphDisabled` trait): nothing was checked, whatever the dump holds. False in
        /// dumps written before the field existed.
        public var trackingOff = false
        /// `all` when the process recorded every Swift object (`LEAKGRAPH_TRACK=all`), `objects`
        /// when only tracked objects; nil in dumps written before the field existed.
        public var tracking: String?
        /// Objects the process recorded since it started, alive or not (nil in older dumps).
        public var recordedObjects: Int?
        /// Why `LEAKGRAPH_TRACK` asked for something that did not happen, as the process said it.
        public var trackingProblem: String?

        /// Why the dump is no evidence of anything, or nil when it is: tracking was off, the
        /// tracking asked for did not happen, or the program recorded no object at all.
        public var notCheckedReason: String? {
            if trackingOff {
                return "tracking was off in the process that wrote it (LEAKGRAPH=off or the LeakGraphDisabled trait)"
            }
            if let trackingProblem { return trackingProblem }
            if recordedObjects == 0 {
                return "nothing was tracked: the program recorded no object (it made no tracked object; "
                    + "LEAKGRAPH_TRACK=all records every Swift object)"
            }
            return nil
        }

        /// Whether the file holds every live object.
        public var isComplete: Bool { writtenObjects >= liveObjects }

        /// The live objects of one type.
        public struct TypeCount: Sendable, Hashable {
            public var type: String
            public var count: Int
            public var leaked: Int
        }
    }

    /// The analysis as written, as the core's ``LeakReport`` (objects reported finished but
    /// still held are not part of the format and are recomputed from the objects' states).
    public var report: LeakReport {
        var report = LeakReport(
            cycles: cycles, leakedObjectIDs: leakedObjectIDs, unknownOwners: unknownOwners,
            finishedButHeld: snapshot.objects.filter { $0.state.isFinished }.map(\.id), neverFinished: neverFinished,
            canNeverFinish: canNeverFinish)
        report.possibleLeaks = possibleLeaks
        return report
    }

    /// Retained cycles that only references the writing process could not read may hold (see
    /// ``LeakReport/possibleLeaks``); recomputed from the objects' `unread` records.
    public var possibleLeaks: [PossibleLeak] = []

    /// Reads and validates the dump at `path`.
    ///
    /// Anything but a regular file (a directory, a device such as `/dev/zero`, a FIFO) is refused
    /// before a byte is read. The file is memory-mapped, not copied, and pages already parsed are
    /// given back as reading goes, so memory use stays near the size of the decoded graph. The
    /// file must not be truncated while it is read: touching a mapped page past the new end
    /// raises SIGBUS, as with any memory-mapped reader.
    ///
    /// - Parameters:
    ///   - path: The dump file.
    ///   - progress: Called now and then on the calling thread with the fraction of the file
    ///     read so far (0…1), for progress displays.
    /// - Throws: ``DumpError`` with a one-line description naming the problem.
    public init(contentsOf path: String, progress: ((Double) -> Void)? = nil) throws(DumpError) {
        let file = try MappedDumpFile(path: path)
        defer { file.unmap() }
        try self.init(bytes: file.bytes, path: path, progress: progress, consumed: file.pageReleaser)
    }

    /// Decodes and validates dump bytes.
    ///
    /// - Parameters:
    ///   - data: The file's contents.
    ///   - path: Names the source in errors.
    ///   - progress: Called now and then with the fraction of `data` read so far (0…1).
    /// - Throws: ``DumpError`` with a one-line description naming the problem.
    public init(data: Data, path: String = "<data>", progress: ((Double) -> Void)? = nil) throws(DumpError) {
        guard !data.isEmpty else { throw DumpError(path: path, problem: "is empty") }
        let result = data.withUnsafeBytes { bytes -> Result<LeakGraphDump, DumpError> in
            do throws(DumpError) {
                return .success(try LeakGraphDump(bytes: bytes, path: path, progress: progress, consumed: nil))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private init(
        bytes: UnsafeRawBufferPointer, path: String, progress: ((Double) -> Void)?, consumed: PageReleaser?
    ) throws(DumpError) {
        guard bytes.count > 0 else { throw DumpError(path: path, problem: "is empty") }
        var reader = DumpReader(bytes: bytes, progress: progress, consumed: consumed, objectsInParallel: true)
        do {
            try reader.read()
        } catch {
            let readInParallel = reader.readObjectsInParallel
            reader.finishObjects()  // the worker reads `bytes`: it ends before they are unmapped
            guard readInParallel else { throw DumpError(path: path, problem: reader.describe(error)) }
            // Word the problem exactly as one pass over the file finds it: read again, in order.
            var again = DumpReader(bytes: bytes, progress: progress, consumed: consumed, objectsInParallel: false)
            do {
                try again.read()
            } catch {
                throw DumpError(path: path, problem: again.describe(error))
            }
            reader = again
        }
        let contents = reader.contents
        do {
            try contents.checkReferences()
        } catch {
            throw DumpError(path: path, problem: error.problem)
        }
        // GraphSnapshot's initialiser sorts a copy of the objects; writers emit them in id order,
        // which needs neither the sort nor the copy (88 MB for a million objects).
        snapshot = GraphSnapshot(objects: [], edges: [], stacks: contents.stacks, time: contents.time)
        snapshot.objects = contents.objectsAscending ? contents.objects : contents.objects.sorted { $0.id < $1.id }
        snapshot.edges = contents.edges
        snapshot.fieldDeclarations = contents.declarations
        snapshot.unreadReferences =
            contents.objectsAscending ? contents.unread : contents.unread.sorted { $0.object < $1.object }
        processID = contents.processID
        summary = contents.summary
        neverFinished = contents.neverFinished
        canNeverFinish = contents.canNeverFinish
        if let written = contents.cycles {
            cycles = written
            leakedObjectIDs =
                contents.leakedFlags.isEmpty
                ? Set(written.filter(\.leaked).flatMap(\.objects)) : contents.leakedSet ?? Set(contents.leakedFlags)
            unknownOwners = contents.unknownOwners ?? LeakDetector.analyze(snapshot).unknownOwners
        } else {
            let report = LeakDetector.analyze(snapshot)
            cycles = report.cycles
            leakedObjectIDs = report.leakedObjectIDs
            unknownOwners = report.unknownOwners
        }
        if let written = contents.possibleLeaks {
            possibleLeaks = written
        } else if !snapshot.unreadReferences.isEmpty {
            var report = LeakReport(cycles: cycles, leakedObjectIDs: leakedObjectIDs, unknownOwners: unknownOwners)
            LeakDetector.addUnreadReach(to: &report, in: snapshot)
            possibleLeaks = report.possibleLeaks
            unknownOwners = report.unknownOwners
        }
        progress?(1)
    }
}

// MARK: - Reading the file

/// A dump file mapped read-only into memory (or read into a buffer where mapping fails).
private struct MappedDumpFile {
    let bytes: UnsafeRawBufferPointer
    private let mapped: Bool

    init(path: String) throws(DumpError) {
        // stat before open: opening a FIFO would block until a writer comes, and reading a
        // device like /dev/zero would never end.
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DumpError(path: path, problem: errno == ENOENT ? "no such file" : Self.reason(errno))
        }
        try Self.checkRegular(info, path: path)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DumpError(path: path, problem: "cannot be read (\(Self.reason(errno)))") }
        defer { _ = close(descriptor) }
        // Again on what was opened: the path may have been replaced in between.
        guard fstat(descriptor, &info) == 0 else {
            throw DumpError(path: path, problem: "cannot be read (\(Self.reason(errno)))")
        }
        try Self.checkRegular(info, path: path)
        guard info.st_size > 0 else { throw DumpError(path: path, problem: "is empty") }
        guard let size = Int(exactly: info.st_size) else { throw DumpError(path: path, problem: "is too large") }
        if let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED {
            _ = madvise(address, size, MADV_SEQUENTIAL)
            bytes = UnsafeRawBufferPointer(start: address, count: size)
            mapped = true
            return
        }
        // Some file systems cannot map; read the file instead.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        var filled = 0
        while filled < size {
            let count = read(descriptor, buffer.baseAddress.map { $0 + filled }, size - filled)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                let problem = "cannot be read (\(Self.reason(errno)))"
                buffer.deallocate()
                throw DumpError(path: path, problem: problem)
            }
            if count == 0 { break }
            filled += count
        }
        bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
        mapped = false
    }

    private static func checkRegular(_ info: stat, path: String) throws(DumpError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw DumpError(path: path, problem: "is a directory, not a dump file")
        default: throw DumpError(path: path, problem: "is not a regular file")
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Gives back the pages of `range`: a private read-only mapping can always fault them in
    /// again from the file, so this only lowers resident memory while the graph is built.
    var pageReleaser: PageReleaser? {
        guard mapped, let base = bytes.baseAddress else { return nil }
        return PageReleaser(base: base, count: bytes.count)
    }

    func unmap() {
        guard let base = bytes.baseAddress else { return }
        if mapped {
            _ = munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }
}

// MARK: - Decoding the format

/// Runs a parser call, turning its error into a reader ``DumpReader/Failure``.
@inline(__always)
private func parse<T>(_ body: () throws(DumpParseError) -> T) throws(DumpReader.Failure) -> T {
    do {
        return try body()
    } catch {
        throw .parse(error)
    }
}

/// Everything a dump contains, as decoded, before cross-checks.
private struct DumpContents {
    var format: String?
    var version: Int?
    var processID: Int32?
    var time = 0.0
    var objects: [ObjectInfo] = []
    /// The objects' `unread` records, in the objects' order.
    var unread: [UnreadReferenceInfo] = []
    /// Ids of objects written with `"leaked": true`.
    var leakedFlags: [UInt64] = []
    /// `leakedFlags` as a set, when the objects worker made it (off the reader's path).
    var leakedSet: Set<UInt64>?
    /// Whether `objects` came in ascending id order (as writers emit them), which makes the
    /// duplicate check a linear scan.
    var objectsAscending = true
    var edges: [EdgeInfo] = []
    var stacks: [StackInfo] = []
    var cycles: [Cycle]?
    var unknownOwners: [UnknownOwner]?
    var possibleLeaks: [PossibleLeak]?
    var declarations: [FieldDeclaration] = []
    var neverFinished: [UInt64] = []
    var canNeverFinish: [UInt64] = []
    var summary: LeakGraphDump.Summary?

    struct Problem: Error {
        var problem: String
    }

    /// Checks that ids are unique and that everything that names an object or a stack names
    /// one that is in the file.
    func checkReferences() throws(Problem) {
        var ids = objects.map(\.id)
        if !objectsAscending { ids.sort() }
        for index in ids.indices.dropFirst() where ids[index] == ids[index - 1] {
            throw Problem(problem: "lists object id \(ids[index]) twice")
        }
        let known = IDSet(sortedIDs: ids)
        let stackIDs = try stackIndex()
        func missingObject(_ id: UInt64, _ place: String) -> Problem {
            Problem(problem: "\(place) names object \(id), which is not in \"objects\"")
        }
        func missingStack(_ id: Int, _ place: String) -> Problem {
            Problem(problem: "\(place) names stack \(id), which is not in \"stacks\"")
        }
        for (index, object) in objects.enumerated() {
            if let stack = object.stack, !stackIDs.contains(stack) {
                throw missingStack(stack, "objects[\(index)].stack")
            }
        }
        for (index, edge) in edges.enumerated() {
            guard known.contains(edge.from) else { throw missingObject(edge.from, "edges[\(index)].from") }
            guard known.contains(edge.to) else { throw missingObject(edge.to, "edges[\(index)].to") }
            if let site = edge.site, !stackIDs.contains(site) { throw missingStack(site, "edges[\(index)].site") }
        }
        for (index, cycle) in (cycles ?? []).enumerated() {
            for (member, id) in cycle.objects.enumerated() where !known.contains(id) {
                throw missingObject(id, "cycles[\(index)].objects[\(member)]")
            }
            for (step, path) in cycle.path.enumerated() {
                guard known.contains(path.from) else {
                    throw missingObject(path.from, "cycles[\(index)].path[\(step)].from")
                }
                guard known.contains(path.to) else { throw missingObject(path.to, "cycles[\(index)].path[\(step)].to") }
            }
            for (number, holder) in cycle.unexplainedHolders.enumerated() {
                let place = "cycles[\(index)].unexplainedHolders[\(number)]"
                guard known.contains(holder.object) else { throw missingObject(holder.object, place + ".object") }
                for (position, id) in holder.knownHolders.enumerated() where !known.contains(id) {
                    throw missingObject(id, place + ".knownHolders[\(position)]")
                }
            }
        }
        for (index, owner) in (unknownOwners ?? []).enumerated() where !known.contains(owner.object) {
            throw missingObject(owner.object, "unknownOwners[\(index)].object")
        }
        for (index, id) in neverFinished.enumerated() where !known.contains(id) {
            throw missingObject(id, "neverFinished[\(index)]")
        }
        for (index, id) in canNeverFinish.enumerated() where !known.contains(id) {
            throw missingObject(id, "canNeverFinish[\(index)]")
        }
        for (index, leak) in (possibleLeaks ?? []).enumerated() {
            if let cycle = leak.cycle, cycle < 0 || cycle >= (cycles?.count ?? 0) {
                throw Problem(problem: "possibleLeaks[\(index)].cycle is \(cycle), not the position of a cycle")
            }
            if let object = leak.object, !known.contains(object) {
                throw missingObject(object, "possibleLeaks[\(index)].object")
            }
        }
    }

    /// The stack ids, checked for duplicates; writers number stacks 0, 1, 2… in order, which
    /// needs no table.
    private func stackIndex() throws(Problem) -> StackIDs {
        if stacks.indices.allSatisfy({ stacks[$0].id == $0 }) { return .dense(stacks.count) }
        var ids = Set<Int>(minimumCapacity: stacks.count)
        for stack in stacks where !ids.insert(stack.id).inserted {
            throw Problem(problem: "lists stack id \(stack.id) twice")
        }
        return .sparse(ids)
    }

    private enum StackIDs {
        case dense(Int)
        case sparse(Set<Int>)

        func contains(_ id: Int) -> Bool {
            switch self {
            case .dense(let count): id >= 0 && id < count
            case .sparse(let ids): ids.contains(id)
            }
        }
    }
}

/// Membership of object ids: a bitmap when ids are dense (as allocation-order ids are), else a
/// binary search of the sorted ids.
private struct IDSet {
    private let sortedIDs: [UInt64]
    private let minimum: UInt64
    private let bits: [UInt64]

    init(sortedIDs: [UInt64]) {
        self.sortedIDs = sortedIDs
        guard let first = sortedIDs.first, let last = sortedIDs.last else {
            minimum = 0
            bits = []
            return
        }
        minimum = first
        // At most 64 bits per object: 8 bytes per object, like the sorted array itself.
        let span = last - first
        guard span / 64 <= UInt64(sortedIDs.count) else {
            bits = []
            return
        }
        var bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
        for id in sortedIDs {
            let offset = id - first
            bits[Int(offset / 64)] |= 1 << (offset % 64)
        }
        self.bits = bits
    }

    func contains(_ id: UInt64) -> Bool {
        if !bits.isEmpty {
            guard id >= minimum else { return false }
            let offset = id - minimum
            let word = offset / 64
            guard word < UInt64(bits.count) else { return false }
            return bits[Int(word)] & (1 << (offset % 64)) != 0
        }
        var low = 0
        var high = sortedIDs.count
        while low < high {
            let middle = low + (high - low) / 2
            if sortedIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sortedIDs.count && sortedIDs[low] == id
    }
}

/// Where in the document a value is read, for error messages: `cycles[3].path[1].from`.
/// Fields are kept as indexes into their table: storing a `String` per field read costs a
/// retain and a release each time, a tenth of the reading time.
private struct DumpLocation {
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
private enum DumpRecord {
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
private enum DumpFields {
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
private struct DumpRecordFields<Field: DumpField>: Sendable {
    let table = DumpFieldTable(Field.names)
    let cases = Field.allCases

    /// The field at `index` of the table, or nil for a key the table does not have (-1).
    @inline(__always)
    func field(_ index: Int) -> Field? { index >= 0 ? cases[index] : nil }

    /// The table index of `field`.
    func index(of field: Field) -> Int { cases.firstIndex(of: field) ?? -1 }

    var names: [String] { table.names }
}

/// Reads version 1 of the format with a ``DumpParser``, building the values as it goes.
private struct DumpReader {
    /// The largest strong retain count accepted: far above any real count (the runtime keeps
    /// 30 bits), low enough that sums over millions of edges cannot overflow.
    static let maximumRetainCount = 1 << 40

    var parser: DumpParser
    var contents = DumpContents()
    private var location = DumpLocation()
    private let progress: ((Double) -> Void)?
    /// Gives back the pages of bytes already read (nil for bytes in memory).
    private let consumed: PageReleaser?
    /// Where this reader's bytes start in the file (a worker reads a part of it).
    private let fileOffset: Int
    /// Byte offset at which to report progress next.
    private var nextReport = 0
    private let reportStep: Int

    // Local copies: a `static let` is checked for initialisation at every use.
    // Copied once, not reached through a global per field: objects and edges are millions.
    private let objectRecord = DumpFields.object
    private let edgeRecord = DumpFields.edge
    private let objectFields = DumpFields.object.table
    private let edgeFields = DumpFields.edge.table
    private let kinds = DumpFields.kinds
    private let origins = DumpFields.origins
    private let states = DumpFields.states

    /// A value error thrown by the reader itself, already worded.
    private struct Invalid: Error {
        var problem: String
    }

    /// Either kind of failure, so one `catch` can word both.
    enum Failure: Error {
        case parse(DumpParseError)
        case invalid(String)
    }

    /// Whether a big `objects` section may be read on a thread of its own (see
    /// ``startObjectsWorker()``).
    private let objectsInParallel: Bool
    /// The thread reading the `objects` section, while it runs.
    private var objectsWorker: BackgroundResult<Result<ParsedObjects, Failure>>?
    /// Whether this read handed the `objects` section to a worker.
    private(set) var readObjectsInParallel = false
    /// Where the worker's section ends: this reader gives back pages after it while it runs.
    private var releasableEnd = 0

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

    private mutating func reportProgress() {
        guard parser.position >= nextReport else { return }
        nextReport = parser.position + reportStep
        progress?(Double(parser.position) / Double(max(parser.count, 1)))
        // While a worker reads the objects, this reader gives back only what comes after them
        // (nothing while it reads a section written before them, when format and version come last).
        let from = objectsWorker != nil ? releasableEnd : 0
        consumed?.release(from: fileOffset + from, upTo: fileOffset + parser.position)
    }

    /// A required field the current record lacks (its field index must already be reset).
    private func missing(_ field: String) -> Failure {
        .invalid("missing required field \(location.description).\(field)")
    }

    /// A problem with the current record; `problem` starts with the field: `.count is 0, …`.
    private func invalid(_ problem: String) -> Failure { .invalid(location.description + problem) }

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

    private mutating func readSection(_ field: Int) throws(Failure) {
        // Optional sections may be null, which reads as absent (as JSONDecoder's optionals did).
        let section = DumpFields.top.field(field)
        if section != .objects && section != .edges, try parse({ () throws(DumpParseError) in try parser.null() }) {
            return
        }
        switch section {
        case .objects?:
            if objectsInParallel, startObjectsWorker() { return }
            try readArray { reader throws(Failure) in try reader.readObject() }
        case .edges?: try readArray { reader throws(Failure) in try reader.readEdge() }
        case .stacks?: try readArray { reader throws(Failure) in try reader.readStack() }
        case .cycles?:
            contents.cycles = []
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
    /// start a record. The worker reads the objects while this reader goes on with the edges,
    /// stacks and cycles (Tools/Benchmarks/README.md has the figures). The worker checks that it
    /// read exactly one array, which makes the split right or the read fail; any problem in either
    /// part makes the caller read the file again in one pass, so errors are worded as before.
    private mutating func startObjectsWorker() -> Bool {
        let start = parser.position
        guard parser.count - start >= ParallelLoading.minimumObjectsBytes.load(ordering: .relaxed),
            parser.byte(at: start) == UInt8(ascii: "["), parser.byte(at: start + 1) == 0x0A,
            let base = parser.base
        else { return false }
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
        guard end > start else { return false }
        readObjectsInParallel = true
        releasableEnd = end
        ParallelLoading.workersStarted.add(1, ordering: .relaxed)
        let section = SendableBytes(UnsafeRawBufferPointer(start: base + start, count: end - start))
        // At most what the section's bytes can hold (the shortest record and its separator take
        // about 20): a file of bare `{` lines must not reserve gigabytes before the parse rejects it.
        let expectedCount = min(recordLines, (end - start) / 20)
        let (sectionOffset, depth, consumed) = (fileOffset + start, parser.depth, consumed)
        objectsWorker = BackgroundResult {
            DumpReader.readObjects(
                section.bytes, fileOffset: sectionOffset, depth: depth, expectedCount: expectedCount,
                consumed: consumed)
        }
        parser.position = end
        return true
    }

    /// Reads a whole `objects` array from `section` (the worker's job).
    ///
    /// `expectedCount` (the record lines seen when the section was split) sizes the arrays once:
    /// growing them by doubling copied and touched twice the memory.
    fileprivate static func readObjects(
        _ section: UnsafeRawBufferPointer, fileOffset: Int, depth: Int, expectedCount: Int, consumed: PageReleaser?
    ) -> Result<ParsedObjects, Failure> {
        var reader = DumpReader(
            bytes: section, progress: nil, consumed: consumed, objectsInParallel: false, fileOffset: fileOffset)
        reader.contents.objects.reserveCapacity(expectedCount)
        // As deep as the one-pass reader is there, so the nesting limit falls in the same place.
        reader.parser.depth = depth
        reader.location = DumpLocation(section: DumpFields.top.names[DumpFields.top.index(of: .objects)])
        do throws(Failure) {
            try reader.readArray { reader throws(Failure) in try reader.readObject() }
            guard reader.parser.position == section.count else { throw Failure.invalid("trailing bytes") }
        } catch {
            return .failure(error)
        }
        // The set of leaked ids is made here too: this thread finishes before the reader does.
        return .success(
            ParsedObjects(
                objects: reader.contents.objects, unread: reader.contents.unread,
                leakedFlags: reader.contents.leakedFlags,
                leakedSet: Set(reader.contents.leakedFlags), ascending: reader.contents.objectsAscending))
    }

    /// Waits for the worker, if one runs (before the bytes it reads go away).
    mutating func finishObjects() {
        _ = objectsWorker?.value
        objectsWorker = nil
    }

    /// Reads an array of records, calling `element` with the location set to each index.
    private mutating func readArray(_ element: (inout DumpReader) throws(Failure) -> Void) throws(Failure) {
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

    // MARK: Records

    private mutating func id() throws(DumpParseError) -> UInt64 {
        let start = parser.position
        let value = try parser.int()
        // `int()` already refuses anything above Int64.max.
        guard value >= 0 else {
            throw DumpParseError(kind: .value, offset: start, problem: "expected an id, found a negative number")
        }
        return UInt64(value)
    }

    private mutating func optionalInt() throws(DumpParseError) -> Int? {
        if try parser.null() { return nil }
        return try parser.int()
    }

    private mutating func idList() throws(DumpParseError) -> [UInt64] {
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

    private mutating func readObject() throws(Failure) {
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
        contents.objects.append(object)
        if leaked { contents.leakedFlags.append(id) }
    }

    /// An object's `unread` records (their `object` is filled in by the caller).
    private mutating func readUnread() throws(DumpParseError) -> [UnreadReferenceInfo] {
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

    private mutating func readEdge() throws(Failure) {
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

    private mutating func readStack() throws(Failure) {
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
                case .frames?:
                    try parser.beginArray()
                    var list: [String] = []
                    var firstFrame = true
                    while try parser.nextElement(first: &firstFrame) {
                        location.innerIndex = list.count
                        list.append(try parser.string())
                    }
                    location.innerIndex = -1
                    frames = list
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

    private mutating func readCycle() throws(Failure) {
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

    private mutating func readSteps() throws(Failure) -> [Cycle.PathStep] {
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

    private mutating func readHolders() throws(Failure) -> [Cycle.Holder] {
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

    private mutating func readSummary() throws(Failure) {
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

    private mutating func readTypeCounts() throws(DumpParseError) -> [LeakGraphDump.Summary.TypeCount] {
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
    private mutating func listedID() throws(Failure) -> UInt64 {
        do {
            return try id()
        } catch {
            throw .parse(error)
        }
    }

    private mutating func readOwner() throws(Failure) {
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

    private mutating func readDeclaration() throws(Failure) {
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

    private mutating func readPossibleLeak() throws(Failure) {
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

extension DotExporter {
    /// Renders a dump read from disk, with the analysis it was written with.
    public static func render(_ dump: LeakGraphDump, options: Options = Options()) -> String {
        render(
            objects: dump.snapshot.objects, edges: dump.snapshot.edges, stacks: dump.snapshot.stacks,
            cycles: dump.cycles, leaked: dump.leakedObjectIDs, options: options)
    }
}

/// When the `objects` section is read on a thread of its own.
enum ParallelLoading {
    /// Files with at least this many bytes from the `objects` section on (tests lower it; the
    /// result is the same either way, only the work is split).
    static let minimumObjectsBytes = Atomic<Int>(8 << 20)
    /// How many reads handed their objects to a worker (for tests).
    static let workersStarted = Atomic<Int>(0)
}

/// Gives back the resident pages of a read-only file mapping, a range at a time.
private struct PageReleaser: @unchecked Sendable {
    // @unchecked: it only calls madvise(MADV_DONTNEED) on whole pages of a private read-only
    // mapping that outlives every reader (pages fault back in from the file if read again).
    let base: UnsafeRawPointer
    let count: Int

    /// Gives back the whole pages between `from` and `upTo` (none when `upTo` is not past `from`).
    func release(from: Int, upTo: Int) {
        let page = max(Int(getpagesize()), 1)
        let start = (max(from, 0) + page - 1) / page * page
        let end = min(upTo, count) / page * page
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }
}

/// Read-only bytes handed to another thread.
private struct SendableBytes: @unchecked Sendable {
    // @unchecked: the bytes are a read-only mapping (or buffer) that the reader keeps until the
    // worker has been waited for; nothing writes them.
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}

/// The `objects` section of a dump, as the thread that read it hands it over.
private struct ParsedObjects: Sendable {
    var objects: [ObjectInfo]
    var unread: [UnreadReferenceInfo]
    var leakedFlags: [UInt64]
    var leakedSet: Set<UInt64>
    var ascending: Bool
}
