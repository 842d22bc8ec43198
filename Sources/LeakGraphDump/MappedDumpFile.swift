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

/// A dump file mapped read-only into memory (or read into a buffer where mapping fails).
struct MappedDumpFile {
    let bytes: UnsafeRawBufferPointer
    let mapped: Bool

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

    static func checkRegular(_ info: stat, path: String) throws(DumpError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw DumpError(path: path, problem: "is a directory, not a dump file")
        default: throw DumpError(path: path, problem: "is not a regular file")
        }
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

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
