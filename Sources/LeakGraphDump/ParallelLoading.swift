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

/// When the `objects` section is read on a thread of its own.
enum ParallelLoading {
    /// Files with at least this many bytes from the `objects` section on (tests lower it; the
    /// result is the same either way, only the work is split).
    static let minimumObjectsBytes = Atomic<Int>(8 << 20)
    /// How many reads handed their objects to a worker (for tests).
    static let workersStarted = Atomic<Int>(0)
}

/// Gives back the resident pages of a read-only file mapping, a range at a time.
struct PageReleaser: Sendable {
    // Unchecked: it only calls madvise(MADV_DONTNEED) on whole pages of a private read-only
    // mapping that outlives every reader (pages fault back in from the file if read again).
    private let mapping: UncheckedSendable<UnsafeRawPointer>
    var base: UnsafeRawPointer { mapping.value }
    let count: Int

    init(base: UnsafeRawPointer, count: Int) {
        mapping = UncheckedSendable(base)
        self.count = count
    }

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
struct SendableBytes: Sendable {
    // Unchecked: the bytes are a read-only mapping (or buffer) that the reader keeps until the
    // worker has been waited for; nothing writes them.
    private let box: UncheckedSendable<UnsafeRawBufferPointer>
    var bytes: UnsafeRawBufferPointer { box.value }

    init(_ bytes: UnsafeRawBufferPointer) { box = UncheckedSendable(bytes) }
}

/// The `objects` section of a dump, as the thread that read it hands it over.
struct ParsedObjects: Sendable {
    var objects: [ObjectInfo]
    var unread: [UnreadReferenceInfo]
    var leakedFlags: [UInt64]
    var leakedSet: Set<UInt64>
    var ascending: Bool
}
