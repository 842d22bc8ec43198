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

        /// Appends `bytes` to the file.
        package mutating func write(_ bytes: UnsafeRawBufferPointer) {
            guard failure == nil, let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(path: path, reason: String(cString: strerror(errno)))
                    return
                }
                offset += written
            }
        }
    }

    /// Creates a file at `path` (never replacing one unless `replace`) and lets `body` write it
    /// in pieces, so that a big file need not be held in memory whole; removes what it created
    /// when a write fails.
    package static func write(to path: String, replace: Bool = false, _ body: (inout Output) -> Void)
        throws(Failure)
    {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | (replace ? 0 : O_EXCL)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "file exists (not overwritten)" : String(cString: strerror(errno))
            throw Failure(path: path, reason: reason)
        }
        var output = Output(descriptor: descriptor, path: path)
        body(&output)
        var failure = output.failure
        if failure == nil && fsyncIfRegular(descriptor) != 0 {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        }
        if close(descriptor) != 0 && failure == nil {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        }
        if let failure {
            if !isCharacterDevice(path) { unlink(path) }
            throw failure
        }
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
