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
        // By position, one field at a time: filtering the records copied each whole.
        let objects = snapshot.objects
        var finished: [UInt64] = []
        for index in objects.indices where objects[index].state.isFinished { finished.append(objects[index].id) }
        var report = LeakReport(
            cycles: cycles, leakedObjectIDs: leakedObjectIDs, unknownOwners: unknownOwners,
            finishedButHeld: finished, neverFinished: neverFinished, canNeverFinish: canNeverFinish)
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

extension DotExporter {
    /// Renders a dump read from disk, with the analysis it was written with.
    public static func render(_ dump: LeakGraphDump, options: Options = Options()) -> String {
        render(
            objects: dump.snapshot.objects, edges: dump.snapshot.edges, stacks: dump.snapshot.stacks,
            cycles: dump.cycles, leaked: dump.leakedObjectIDs, options: options)
    }
}
