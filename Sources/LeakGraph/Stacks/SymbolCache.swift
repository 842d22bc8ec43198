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
    /// The answers known for one image, by kind and offset.
    private struct ImageAnswers {
        let identity: String
        var answers: [String: [UInt: String]] = [:]
        var count = 0
        var changed = false
    }

    /// What `swift-demangle` made of mangled names, for one version of the tool.
    private struct DemangledNames {
        let identity: String
        let file: String
        var names: [String: String] = [:]
        var changed = false
    }

    /// The folder, or nil when nothing is kept.
    let directory: String?
    /// The symbolizer's own identity (its path, size, time, inode): another tool's answers are not
    /// this one's.
    let tool: String
    private var images: [String: ImageAnswers] = [:]
    private var demangled: DemangledNames?

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
    mutating func answers(image: String, kind: String, offsets: [UInt]) -> [String?] {
        guard directory != nil, let known = loaded(image)?.answers[kind] else {
            return Array(repeating: nil, count: offsets.count)
        }
        return offsets.map { known[$0] }
    }

    /// Keeps answers the tool gave, for the next write.
    mutating func remember(image: String, kind: String, offsets: [UInt], answers: [Substring]) {
        guard directory != nil, var entry = loaded(image) else { return }
        for (offset, answer) in zip(offsets, answers) where entry.count < Self.maximumAnswersPerImage {
            guard Self.isAnswer(answer, for: offset), entry.answers[kind]?[offset] == nil else { continue }
            entry.answers[kind, default: [:]][offset] = String(answer)
            entry.count += 1
            entry.changed = true
        }
        images[image] = entry
    }

    /// What `demangler` (`swift-demangle`) made of each of `names`, where known (nil elsewhere).
    mutating func demangled(_ names: [String], by demangler: String) -> [String?] {
        guard let known = loadedNames(demangler) else { return Array(repeating: nil, count: names.count) }
        return names.map { known.names[$0] }
    }

    /// Keeps what the demangler made of `names`, for the next write.
    mutating func remember(demangled texts: [String], of names: [String], by demangler: String) {
        guard var known = loadedNames(demangler) else { return }
        for (name, text) in zip(names, texts) where known.names.count < Self.maximumAnswersPerImage {
            guard !name.contains("\n"), !name.contains("\t"), !text.contains("\n"), known.names[name] == nil else {
                continue
            }
            known.names[name] = text
            known.changed = true
        }
        self.demangled = known
    }

    /// The names known for this version of `demangler`: `<folder>/<hash>.names`, its first line the
    /// tool's identity, then `mangled<TAB>demangled` per line.
    private mutating func loadedNames(_ demangler: String) -> DemangledNames? {
        if let demangled, demangled.identity.hasSuffix(" " + demangler) { return demangled }
        guard let directory, let identity = Self.identity(of: demangler) else { return nil }
        let file = Self.path(of: demangler, in: directory, suffix: ".names")
        var known = DemangledNames(identity: identity, file: file)
        if let data = FileManager.default.contents(atPath: file) {
            let text = String(decoding: data, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            if lines.first.map({ $0 == "LGNAMES1 " + identity }) == true {
                for line in lines.dropFirst().prefix(Self.maximumAnswersPerImage) {
                    guard let tab = line.firstIndex(of: "\t") else { continue }
                    known.names[String(line[..<tab])] = String(line[line.index(after: tab)...])
                }
            }
        }
        demangled = known
        return known
    }

    /// Writes the images that gained answers since they were read, and the demangled names;
    /// failures are silent (a cache that cannot be written costs only time).
    mutating func writeChanged() {
        guard let directory else { return }
        if let known = demangled, known.changed, Self.makeDirectory(directory) {
            var text = "LGNAMES1 " + known.identity + "\n"
            for (name, demangled) in known.names.sorted(by: { $0.key < $1.key }) {
                text += name + "\t" + demangled + "\n"
            }
            if Self.replace(known.file, with: text) { demangled?.changed = false }
        }
        for (image, entry) in images where entry.changed {
            guard Self.makeDirectory(directory) else { return }
            var text = "LGSYM1 " + tool + " | " + entry.identity + "\n"
            for (kind, answers) in entry.answers.sorted(by: { $0.key < $1.key }) {
                for (offset, answer) in answers.sorted(by: { $0.key < $1.key }) {
                    text += kind + " " + String(offset, radix: 16) + " " + answer + "\n"
                }
            }
            if Self.replace(Self.path(of: image, in: directory), with: text) { images[image]?.changed = false }
        }
    }

    /// The answers of `image`, read from its file the first time; nil when the image cannot be
    /// identified (then nothing is kept for it).
    private mutating func loaded(_ image: String) -> ImageAnswers? {
        if let entry = images[image] { return entry }
        guard let directory, let identity = Self.identity(of: image) else { return nil }
        var entry = ImageAnswers(identity: identity)
        if let data = FileManager.default.contents(atPath: Self.path(of: image, in: directory)) {
            let text = String(decoding: data, as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
            if lines.first.map({ $0 == "LGSYM1 " + tool + " | " + identity }) == true {
                lines = lines.dropFirst()
                for line in lines.prefix(Self.maximumAnswersPerImage) {
                    let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                    guard parts.count == 3, parts[0] == "CODE" || parts[0] == "DATA",
                        let offset = UInt(parts[1], radix: 16), Self.isAnswer(parts[2], for: offset)
                    else { continue }
                    entry.answers[String(parts[0]), default: [:]][offset] = String(parts[2])
                    entry.count += 1
                }
            }
        }
        images[image] = entry
        return entry
    }

    /// Whether `line` is the tool's answer for `offset`: one JSON object naming that address, not
    /// an error (an answer to keep).
    static func isAnswer(_ line: Substring, for offset: UInt) -> Bool {
        line.hasPrefix("{") && line.hasSuffix("}") && !line.contains("\n") && !line.contains("\"Error\"")
            && line.contains("\"Address\":\"0x" + String(offset, radix: 16) + "\"")
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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in image.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return directory + "/" + String(hash, radix: 16) + suffix
    }

    private static func makeDirectory(_ directory: String) -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) { return isDirectory.boolValue }
        return (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
    }

    /// Writes `text` to a temporary beside `path` and renames it over `path`. Plain system calls:
    /// not the dump's writer, whose injected faults (`LEAKGRAPH_FAULT_INJECTION`) are the dump's.
    private static func replace(_ path: String, with text: String) -> Bool {
        var template = Array((path + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return false }
        // Not inherited by a tool started meanwhile (`posix_spawn`).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var bytes = Array(text.utf8)
        var written = 0
        var failed = false
        bytes.withUnsafeMutableBytes { buffer in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                written += result
            }
        }
        bytes = []
        fchmod(descriptor, 0o644)
        close(descriptor)
        guard !failed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
