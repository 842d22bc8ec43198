import CLeakGraphSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes files without ever replacing one that exists, reporting failures as one line.
public enum SafeFileWriter {
    /// Why a write failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The path that could not be written.
        public var path: String
        /// What went wrong.
        public var reason: String
        /// `cannot write <path>: <reason>`.
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Creates `directory` and its parents when missing.
    package static func createDirectory(_ directory: String) throws(Failure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw Failure(path: directory, reason: "exists and is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? "cannot create the directory"
            throw Failure(path: directory, reason: reason)
        }
    }

    /// Writes `contents` to a new file at `path`; fails if the file exists (never overwrites),
    /// and removes what it created when a write fails (a full disk, say).
    ///
    /// - Parameter replace: Allow replacing an existing file (only for files the caller owns,
    ///   such as a test's own artifacts).
    package static func write(_ contents: String, to path: String, replace: Bool = false) throws(Failure) {
        var text = contents
        let result = text.withUTF8 { buffer in
            Result { () throws(Failure) in try write(bytes: buffer, to: path, replace: replace) }
        }
        try result.get()
    }

    /// Writes `bytes` like ``write(_:to:replace:)``.
    package static func write(_ bytes: [UInt8], to path: String, replace: Bool = false) throws(Failure) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) in try write(bytes: buffer, to: path, replace: replace) }
        }
        try result.get()
    }

    private static func write(bytes buffer: UnsafeBufferPointer<UInt8>, to path: String, replace: Bool) throws(Failure)
    {
        try write(to: path, replace: replace) { output in output.write(UnsafeRawBufferPointer(buffer)) }
    }

    /// A file being written in pieces by ``write(to:replace:_:)``. After the first failed
    /// write, later ones are ignored; the failure is thrown when the body returns.
    package struct Output {
        fileprivate let descriptor: Int32
        fileprivate let path: String
        fileprivate(set) var failure: Failure?
        /// When set, pieces are handed to a writer thread instead of written here.
        fileprivate var pipeline: WritePipeline?

        /// Appends `bytes` to the file.
        package mutating func write(_ bytes: UnsafeRawBufferPointer) {
            if let pipeline {
                pipeline.enqueue(bytes)
                return
            }
            guard failure == nil, let base = bytes.baseAddress else { return }
            if let reason = writeAll(descriptor, base, bytes.count) { failure = Failure(path: path, reason: reason) }
        }
    }

    /// Creates a file at `path` (never replacing one unless `replace`) and lets `body` write it
    /// in pieces, so that a big file need not be held in memory whole.
    ///
    /// Crash-consistent: the bytes go to a temporary file in the same folder, which is flushed to
    /// its device and then renamed to `path` in one step. A crash, a full disk or a failed write
    /// leaves whatever `path` held before intact (a file being replaced is never first
    /// truncated) and no half-written file under its name; the temporary is removed on failure.
    /// Devices and pipes (`/dev/stdout`) are written directly.
    ///
    /// - Parameter overlapped: Write the pieces on a thread of their own, so that making the next
    ///   piece overlaps the kernel copying the last one (a dump of 400 MB spends about a second in
    ///   `write`). Each piece is copied once; at most three wait.
    package static func write(
        to path: String, replace: Bool = false, overlapped: Bool = false, _ body: (inout Output) -> Void
    ) throws(Failure) {
        let direct = isCharacterDevice(path) || isFIFO(path)
        if !direct && !replace && exists(path) {
            throw Failure(path: path, reason: "file exists (not overwritten)")
        }
        let target = direct ? path : temporaryPath(for: path)
        let flags = direct ? O_WRONLY | O_TRUNC : O_WRONLY | O_CREAT | O_EXCL
        let descriptor = open(target, flags, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "file exists (not overwritten)" : String(cString: strerror(errno))
            throw Failure(path: path, reason: reason)
        }
        var output = Output(descriptor: descriptor, path: path)
        // Not in a forked child: its new threads can wait forever (see `lg_is_forked_child`).
        if overlapped && lg_is_forked_child() == 0 { output.pipeline = WritePipeline(descriptor: descriptor) }
        body(&output)
        if let reason = output.pipeline?.finish() { output.failure = Failure(path: path, reason: reason) }
        var failure = output.failure
        if failure == nil && fsyncIfRegular(descriptor) != 0 {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        }
        if close(descriptor) != 0 && failure == nil {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        }
        if failure == nil && !direct {
            failure = publish(target, as: path, replace: replace)
        }
        if let failure {
            if !direct { unlink(target) }
            throw failure
        }
    }

    /// A new name in `path`'s folder for the temporary it is written to: hidden, and unique to
    /// this process and call (eight processes dumping into one folder never share one).
    private static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Gives the written temporary its final name in one step, then flushes the folder so that
    /// the name survives a crash too (best effort). Without `replace`, an existing file (made by
    /// someone else meanwhile) is never replaced: `link` fails if the name exists.
    private static func publish(_ temporary: String, as path: String, replace: Bool) -> Failure? {
        if replace {
            guard rename(temporary, path) == 0 else {
                return Failure(path: path, reason: String(cString: strerror(errno)))
            }
        } else if link(temporary, path) == 0 {
            unlink(temporary)
        } else {
            let linkError = errno
            if linkError == EEXIST { return Failure(path: path, reason: "file exists (not overwritten)") }
            // A file system without hard links: rename, having checked the name is still free.
            guard !exists(path), rename(temporary, path) == 0 else {
                return Failure(path: path, reason: String(cString: strerror(exists(path) ? EEXIST : errno)))
            }
        }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
        return nil
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// Flushes a regular file's contents to its device before the write is reported done (the
    /// directory entry is not flushed); pipes and devices (`/dev/stdout`) have nothing to flush
    /// and would fail fsync. A failed fsync counts as a failed write.
    private static func fsyncIfRegular(_ descriptor: Int32) -> Int32 {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return fsync(descriptor)
    }

    private static func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif

/// Writes all of `count` bytes at `base`, retrying interrupted and partial writes; the error's
/// text on failure.
private func writeAll(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> String? {
    var offset = 0
    while offset < count {
        var length = count - offset
        switch WriteFaults.next() {
        case .error(let code)?: return String(cString: strerror(code))
        case .interrupted?: continue
        case .short?: length = max(1, length / 2)
        case nil: break
        }
        let written = systemWrite(descriptor, base + offset, length)
        if written < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        offset += written
    }
    return nil
}

/// A writer thread fed through three buffers: the producer copies a piece into a free buffer and
/// goes on; the thread writes full buffers in order and frees them.
///
/// `@unchecked Sendable`: the buffers are handed over through the semaphores and the locked
/// queues (a buffer is either free, owned by the producer while it fills it, queued, or owned by
/// the writer while it writes it: each hand-over goes through a lock, which also orders the
/// buffer's bytes for the thread sanitizer); the failure is behind a lock.
private final class WritePipeline: @unchecked Sendable {
    private static let bufferCount = 3
    private let descriptor: Int32
    /// A fixed table, not an array: the two threads touch different entries at once, which a
    /// Swift array's copy-on-write check would make a race.
    private let buffers: UnsafeMutablePointer<UnsafeMutableRawBufferPointer>
    private let freeBuffers = Locked<[Int]>(Array(0..<WritePipeline.bufferCount))
    /// Buffers to write and their lengths, in order; a length of -1 ends the thread.
    private let queued = Locked<[(buffer: Int, count: Int)]>([])
    private let freeCount = DispatchSemaphore(value: WritePipeline.bufferCount)
    private let queuedCount = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Locked<String?>(nil)

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffers = .allocate(capacity: Self.bufferCount)
        buffers.initialize(repeating: UnsafeMutableRawBufferPointer(start: nil, count: 0), count: Self.bufferCount)
        let thread = Thread { [self] in run() }
        thread.name = "leakgraph-writer"
        thread.start()
    }

    /// Copies `bytes` into a free buffer (growing it if needed) and queues it.
    func enqueue(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        freeCount.wait()
        let index = freeBuffers.withLock { $0.removeLast() }
        if buffers[index].count < bytes.count {
            buffers[index].deallocate()
            buffers[index] = .allocate(byteCount: bytes.count, alignment: 16)
        }
        buffers[index].baseAddress!.copyMemory(from: base, byteCount: bytes.count)
        queued.withLock { $0.append((index, bytes.count)) }
        queuedCount.signal()
    }

    /// Waits for every queued piece to be written; the first write error's text, if any.
    func finish() -> String? {
        queued.withLock { $0.append((0, -1)) }
        queuedCount.signal()
        finished.wait()
        for index in 0..<Self.bufferCount { buffers[index].deallocate() }
        buffers.deallocate()
        return failure.withLock { $0 }
    }

    private func run() {
        var offset = 0
        while true {
            queuedCount.wait()
            let (index, count) = queued.withLock { $0.removeFirst() }
            if count < 0 { break }
            if failure.withLock({ $0 == nil }), let base = buffers[index].baseAddress {
                if let reason = writeAll(descriptor, base, count) {
                    failure.withLock { $0 = reason }
                } else {
                    // The device starts on each piece as it is written, not all at the closing
                    // fsync (0.2 s for a dump of 440 MB here, on the exit's critical path).
                    lg_start_writeback(descriptor, Int64(offset), Int64(count))
                    offset += count
                }
            }
            freeBuffers.withLock { $0.append(index) }
            freeCount.signal()
        }
        finished.signal()
    }
}
