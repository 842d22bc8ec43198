import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `llvm-symbolizer` answered for an image's addresses, kept across runs: a test suite starts
/// the same test binary in many processes, and each dump's symbolizer started again and read that
/// binary's debug information again (about 0.2 s of CPU for each process of OpenCombine's suite,
/// most of a dump's cost).
///
/// One file per image path in `LEAKGRAPH_CACHE_DIR/symbols` (default `~/.cache/leakgraph/symbols`;
/// `off` keeps nothing), named by a hash of the path. Its first line says which symbolizer answered
/// and which file it describes — each by path, size, modification time and inode —, and a file
/// that describes another version of either is ignored and replaced: an answer is reused only for the very file it was made
/// for. Then one answer per line: `CODE` or `DATA` (the kind of lookup), the offset in hex, and
/// the tool's JSON line as it printed it. A line not of that form, not the answer for its offset
/// (its `Address`), or an error, is skipped; the tool is asked again for what is missing. Written
/// at the end of a job (a dump, a failed check), or after a lookup outside any job, for images that
/// gained answers, to a temporary in the same folder and renamed: a reader never sees half a file.
/// Processes writing one image's file at once each replace it whole: the last one's answers are
/// kept (the others' are asked again next time). A relative `LEAKGRAPH_CACHE_DIR` is taken from the
/// working directory at the first lookup.
struct SymbolCache {
    /// Answers the tool gave during the current job that the files do not hold yet.
    private struct Pending {
        var lines: [String] = []
    }

    /// The folder, or nil when nothing is kept.
    let directory: String?
    /// The symbolizer's own identity (its path, size, time, inode): another tool's answers are not
    /// this one's.
    let tool: String
    /// New answers per image path, and new names per demangler path, until the job's end.
    private var pendingAnswers: [String: Pending] = [:]
    private var pendingNames: [String: Pending] = [:]

    /// More answers than this for one image are not kept (a file stays below ten megabytes).
    static let maximumAnswersPerImage = 20_000

    init(directory: String? = Self.defaultDirectory(), tool: String = "") {
        self.directory = directory
        self.tool = tool
    }

    /// `LEAKGRAPH_CACHE_DIR/symbols`, or under `$XDG_CACHE_HOME/leakgraph` or `~/.cache/leakgraph`;
    /// nil when the variable says `off` (or `0`, `none`, empty) or no home is known.
    static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let chosen = environment["LEAKGRAPH_CACHE_DIR"] {
            if ["", "off", "0", "none"].contains(chosen) { return nil }
            if chosen.hasPrefix("/") { return chosen + "/symbols" }
            return FileManager.default.currentDirectoryPath + "/" + chosen + "/symbols"
        }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/leakgraph/symbols" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/leakgraph/symbols" }
        return nil
    }

    /// The cached answers of `kind` for `offsets` of `image` (nil where none is known).
    ///
    /// The file is scanned once for just these offsets: nothing of it is kept (a long-running
    /// process's dumps on demand kept megabytes of other programs' answers when files were
    /// parsed whole), and its bytes are one allocation, returned to the system when freed.
    func answers(image: String, kind: String, offsets: [UInt]) -> [String?] {
        var found = [String?](repeating: nil, count: offsets.count)
        guard let directory, let identity = Self.identity(of: image) else { return found }
        var wanted: [UInt: [Int]] = [:]
        for (index, offset) in offsets.enumerated() { wanted[offset, default: []].append(index) }
        let prefix = Array((kind + " ").utf8)
        Self.scan(Self.path(of: image, in: directory), header: imageHeader(identity)) { line in
            // `KIND hex {json}`: only a wanted offset's line becomes a string.
            guard line.count > prefix.count, line.starts(with: prefix) else { return }
            var offset: UInt = 0
            var position = prefix.count
            while position < line.count, let digit = Self.hexValue(line[position]) {
                guard offset >> 60 == 0 else { return }
                offset = offset << 4 | UInt(digit)
                position += 1
            }
            guard position > prefix.count, position < line.count, line[position] == 0x20,
                let indices = wanted[offset]
            else { return }
            let answer = Substring(String(decoding: line[(position + 1)...], as: UTF8.self))
            guard Self.isAnswer(answer, for: offset) else { return }
            for index in indices where found[index] == nil { found[index] = String(answer) }
        }
        return found
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// Keeps answers the tool gave, for the job's end.
    mutating func remember(image: String, kind: String, offsets: [UInt], answers: [Substring]) {
        guard directory != nil, !image.contains("\n") else { return }
        for (offset, answer) in zip(offsets, answers) where Self.isAnswer(answer, for: offset) {
            pendingAnswers[image, default: Pending()].lines.append(
                kind + " " + String(offset, radix: 16) + " " + answer)
        }
    }

    /// What `demangler` (`swift-demangle`) made of each of `names`, where known (nil elsewhere).
    func demangled(_ names: [String], by demangler: String) -> [String?] {
        var found = [String?](repeating: nil, count: names.count)
        guard let directory, let identity = Self.identity(of: demangler) else { return found }
        // By the name's length and last bytes (mangled names share long prefixes, not ends): only a
        // line whose name may be wanted is hashed, and only a wanted one becomes a string.
        var wanted: [UInt64: [Int]] = [:]
        var maybeWanted: Set<UInt64> = []
        for (index, name) in names.enumerated() {
            wanted[Self.hash(name.utf8), default: []].append(index)
            maybeWanted.insert(Array(name.utf8).withUnsafeBytes { Self.lengthAndEnd(of: $0) })
        }
        Self.scan(Self.path(of: demangler, in: directory, suffix: ".names"), header: "LGNAMES1 " + identity) { line in
            guard let start = line.baseAddress, let tabByte = memchr(start, 0x09, line.count) else { return }
            let tab = start.distance(to: UnsafeRawPointer(tabByte))
            guard maybeWanted.contains(Self.lengthAndEnd(of: UnsafeRawBufferPointer(rebasing: line[..<tab]))),
                let indices = wanted[Self.hash(line[..<tab])]
            else { return }
            let name = String(decoding: line[..<tab], as: UTF8.self)
            let text = String(decoding: line[(tab + 1)...], as: UTF8.self)
            for index in indices where found[index] == nil && names[index] == name { found[index] = text }
        }
        return found
    }

    /// Keeps what the demangler made of `names`, for the job's end.
    mutating func remember(demangled texts: [String], of names: [String], by demangler: String) {
        guard directory != nil else { return }
        for (name, text) in zip(names, texts) {
            guard !name.contains("\n"), !name.contains("\t"), !text.contains("\n"), !name.isEmpty else { continue }
            pendingNames[demangler, default: Pending()].lines.append(name + "\t" + text)
        }
    }

    /// Adds the new answers and names to their files (each rewritten whole through a temporary
    /// renamed over it; a file that describes another version of its image or tool starts again);
    /// failures are silent (a cache that cannot be written costs only time).
    mutating func writeChanged() {
        defer {
            pendingAnswers = [:]
            pendingNames = [:]
        }
        guard let directory, !(pendingAnswers.isEmpty && pendingNames.isEmpty), Self.makeDirectory(directory)
        else { return }
        for (image, pending) in pendingAnswers {
            guard let identity = Self.identity(of: image) else { continue }
            Self.append(pending.lines, to: Self.path(of: image, in: directory), header: imageHeader(identity))
        }
        for (demangler, pending) in pendingNames {
            guard let identity = Self.identity(of: demangler) else { continue }
            Self.append(
                pending.lines, to: Self.path(of: demangler, in: directory, suffix: ".names"),
                header: "LGNAMES1 " + identity)
        }
    }

    private func imageHeader(_ identity: String) -> String {
        "LGSYM1 " + tool + " | " + identity
    }

    /// Calls `body` with the bytes of each line after the header of the file at `path`, when its
    /// first line is `header`. The file is mapped, not read into the heap, and unmapped after:
    /// nothing of it stays in the process (a server's dumps on demand kept megabytes when the
    /// files were parsed into strings).
    private static func scan(_ path: String, header: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0, info.st_size < 64 << 20 else { return }
        let size = Int(info.st_size)
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            return
        }
        defer { munmap(mapping, size) }
        let bytes = UnsafeRawBufferPointer(start: mapping, count: size)
        let headerBytes = Array(header.utf8)
        var start = 0
        var lineNumber = 0
        // Line ends found by `memchr`: a loop over every byte in Swift was most of a scan (a test
        // binary's file is megabytes, scanned once per image and kind in each dump).
        while start < size, let found = memchr(mapping + start, 0x0A, size - start) {
            let index = mapping.distance(to: found)
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if lineNumber == 0 {
                guard line.elementsEqual(headerBytes) else { return }
            } else if !line.isEmpty {
                guard lineNumber <= maximumAnswersPerImage else { return }
                body(line)
            }
            lineNumber += 1
            start = index + 1
        }
    }

    /// A name's length and its last seven bytes, in one word: a cheap first test of a line's name.
    private static func lengthAndEnd(of name: UnsafeRawBufferPointer) -> UInt64 {
        var end: UInt64 = 0
        for byte in name.suffix(7) { end = end << 8 | UInt64(byte) }
        return end ^ UInt64(truncatingIfNeeded: name.count) << 56
    }

    /// FNV-1a of `bytes`.
    private static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// Rewrites the file at `path` as its lines (when it has `header`) and then `lines`, up to
    /// ``maximumAnswersPerImage`` lines, streamed through a small buffer (nothing the size of the
    /// file is built in the heap).
    private static func append(_ lines: [String], to path: String, header: String) {
        _ = replace(path) { emit in
            func emitLine(_ text: String) {
                var text = text + "\n"
                text.withUTF8 { emit(UnsafeRawBufferPointer($0)[...]) }
            }
            let newline: [UInt8] = [0x0A]
            emitLine(header)
            var count = 0
            scan(path, header: header) { line in
                emit(line[...])
                newline.withUnsafeBytes { emit($0[...]) }
                count += 1
            }
            for line in lines where count < maximumAnswersPerImage {
                emitLine(line)
                count += 1
            }
        }
    }

    /// Whether `line` is the tool's answer for `offset`: one JSON object naming that address, not
    /// an error (an answer to keep).
    ///
    /// Searched as bytes (``Swift/Substring/containsBytes(_:)``): Foundation's `contains` bridged each
    /// line to an `NSString`, a tenth of a test process's dump.
    static func isAnswer(_ line: Substring, for offset: UInt) -> Bool {
        line.hasPrefix("{") && line.hasSuffix("}") && !line.containsBytes("\n")
            && !line.containsBytes("\"Error\"")
            && line.containsBytes("\"Address\":\"0x" + String(offset, radix: 16) + "\"")
    }

    /// The image file's path, size, modification time and inode: another build of it differs.
    static func identity(of image: String) -> String? {
        var info = stat()
        guard stat(image, &info) == 0, !image.contains("\n") else { return nil }
        #if canImport(Darwin)
            let modified = Int(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int(info.st_mtimespec.tv_nsec)
        #else
            let modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        #endif
        return "\(info.st_size) \(modified) \(info.st_ino) \(image)"
    }

    /// `<folder>/<FNV-1a hash of the image path>.symbols`.
    static func path(of image: String, in directory: String, suffix: String = ".symbols") -> String {
        directory + "/" + String(hash(image.utf8), radix: 16) + suffix
    }

    private static func makeDirectory(_ directory: String) -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) { return isDirectory.boolValue }
        return (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
    }

    /// Writes what `contents` emits to a temporary beside `path` and renames it over `path`.
    /// Plain system calls: not the dump's writer, whose injected faults
    /// (`LEAKGRAPH_FAULT_INJECTION`) are the dump's.
    private static func replace(
        _ path: String, _ contents: ((Slice<UnsafeRawBufferPointer>) -> Void) -> Void
    ) -> Bool {
        var template = Array((path + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return false }
        // Not inherited by a tool started meanwhile (`posix_spawn`).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let capacity = 1 << 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        var used = 0
        var failed = false
        func flush() {
            var written = 0
            while written < used && !failed {
                let result = write(descriptor, buffer.baseAddress! + written, used - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failed = true
                } else {
                    written += result
                }
            }
            used = 0
        }
        contents { bytes in
            var rest = bytes
            while !rest.isEmpty && !failed {
                if used == capacity { flush() }
                let taken = min(capacity - used, rest.count)
                UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + taken]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: rest.prefix(taken)))
                used += taken
                rest = rest.dropFirst(taken)
            }
        }
        flush()
        fchmod(descriptor, 0o644)
        close(descriptor)
        guard !failed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
