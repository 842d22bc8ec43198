import Foundation
import Synchronization

/// Runs `llvm-symbolizer` (or `addr2line`) and `swift-demangle` as child processes, with a
/// deadline, and parses what they print. Missing tools are looked up once and skipped after.
final class ExternalSymbolizer: Sendable {
    static let shared = ExternalSymbolizer(livesAsLongAsTheProcess: true)

    struct Result {
        let function: String?
        let file: String?
        let line: Int?
        /// The line where the function itself starts (its declaration; for a closure, the
        /// closure expression's first line), when the symbolizer says.
        var startLine: Int? = nil
    }

    private let symbolizer: (path: String, isLLVM: Bool)?
    private let demangler: String?
    private let demangled: Locked<[String: String]>
    /// The running `llvm-symbolizer` and how many jobs use it (see ``withSession(_:)``).
    private let session: Locked<SessionState>
    /// Answers kept across runs (see ``SymbolCache``).
    private let cache: Locked<SymbolCache>
    /// How many batches the running tool was asked (what the cache did not know).
    private let toolBatches = Atomic<Int>(0)

    private struct SessionState {
        var running: SymbolizerSession?
        var jobs = 0
        /// The process the state is about: a forked child inherits its parent's tool and jobs
        /// (threads that do not exist in it), and starts again from none of either.
        var process = getpid()

        mutating func forgetParent() {
            guard process != getpid() else { return }
            running?.end()  // Only the child's copies of the descriptors are closed.
            running = nil
            jobs = 0
            process = getpid()
        }
    }

    /// Longest a child process may run before it is killed.
    static let deadline: TimeInterval = 20

    /// - Parameters:
    ///   - cacheDirectory: where answers are kept across runs (nil: nowhere); the configured
    ///     folder by default.
    ///   - livesAsLongAsTheProcess: its locks are held across `fork()` (``shared``); an instance
    ///     that may be freed (a test's) must not register them: the fork handler would take a
    ///     freed lock.
    init(cacheDirectory: String? = SymbolCache.defaultDirectory(), livesAsLongAsTheProcess: Bool = false) {
        if let path = Self.find("llvm-symbolizer") {
            symbolizer = (path, true)
        } else if let path = Self.find("addr2line") {
            symbolizer = (path, false)
        } else {
            symbolizer = nil
        }
        demangler = Self.find("swift-demangle")
        let tool = symbolizer.flatMap { SymbolCache.identity(of: $0.path) } ?? "none"
        cache = Locked(SymbolCache(directory: cacheDirectory, tool: tool), heldAcrossFork: livesAsLongAsTheProcess)
        demangled = Locked([:], heldAcrossFork: livesAsLongAsTheProcess)
        session = Locked(SessionState(), heldAcrossFork: livesAsLongAsTheProcess)
    }

    /// Looks `tool` up on the `PATH` (and, for the symbolizers, in the usual toolchain folders).
    static func find(_ tool: String, includingDefaultFolders: Bool = true) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var directories = path.split(separator: ":").map(String.init)
        if includingDefaultFolders { directories += ["/usr/bin", "/opt/swift/usr/bin"] }
        for directory in directories {
            let candidate = directory + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `body`, a job that symbolizes several times (a dump, a failed check), with one
    /// `llvm-symbolizer` kept running from its first lookup to its end: every image it reads
    /// stays loaded between the job's batches. Jobs may nest and overlap across threads; the tool
    /// ends with the last. Lookups outside any job start a tool and end it after their batch.
    func withSession<Result>(_ body: () throws -> Result) rethrows -> Result {
        session.withLock { state in
            state.forgetParent()
            state.jobs += 1
        }
        defer {
            // Ended outside the lock: ending waits for the tool to exit.
            var ending = session.withLock { state -> SymbolizerSession? in
                state.jobs = max(0, state.jobs - 1)
                guard state.jobs == 0 else { return nil }
                defer { state.running = nil }
                return state.running
            }
            let lastJob = ending != nil || session.withLock { $0.jobs == 0 }
            ending?.end()
            if lastJob { cache.withLock { $0.writeChanged() } }
        }
        return try body()
    }

    /// How many batches of lookups the running tool has been asked in this process: answers the
    /// cache of earlier runs knew are not asked.
    package var toolBatchesAsked: Int { toolBatches.load(ordering: .relaxed) }

    /// The process of the `llvm-symbolizer` running for the jobs now, if one is.
    var runningToolID: pid_t? { session.withLock { $0.running?.processID } }

    /// Function (mangled), file and line for each offset in `image`, or nil when no tool ran:
    /// for each offset, its frames innermost first — the functions inlined at that address, then
    /// the function that holds it. (Without inlines, a release build blames an object made inside
    /// an inlined function on its caller.)
    func symbolize(image: String, offsets: [UInt]) -> [[Result]]? {
        guard let symbolizer, !offsets.isEmpty else { return nil }
        if symbolizer.isLLVM {
            if let lines = ask(image: image, offsets: offsets, kind: "CODE") {
                return lines.map(Self.parseJSONFrames)
            }
            let input = offsets.map { String(format: "0x%lx", $0) }.joined(separator: "\n") + "\n"
            let arguments = ["--obj=\(image)", "--no-demangle", "--inlines", "--output-style=JSON"]
            guard let output = Self.run(symbolizer.path, arguments: arguments, input: input) else { return nil }
            let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
            guard lines.count >= offsets.count else { return nil }
            return lines.prefix(offsets.count).map(Self.parseJSONFrames)
        }
        let input = offsets.map { String(format: "0x%lx", $0) }.joined(separator: "\n") + "\n"
        guard let output = Self.run(symbolizer.path, arguments: ["-f", "-e", image], input: input) else { return nil }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard lines.count >= offsets.count * 2 else { return nil }
        return (0..<offsets.count).map { index in
            let function = lines[index * 2]
            let location = lines[index * 2 + 1]
            var file: String?
            var line: Int?
            if let colon = location.firstIndex(of: ":") {
                let path = String(location[..<colon])
                if path != "??" && !path.isEmpty { file = path }
                let rest = location[location.index(after: colon)...]
                line = Int(rest.prefix { $0.isNumber })
            }
            return [Result(function: function == "??" ? nil : function, file: file, line: line)]
        }
    }

    /// The (mangled) name of the data symbol holding each offset in `image` — a global's — or nil
    /// per offset when none does; nil when no tool can tell (llvm-symbolizer's `DATA` lookups).
    func symbolizeData(image: String, offsets: [UInt]) -> [String?]? {
        guard let symbolizer, symbolizer.isLLVM, !offsets.isEmpty else { return nil }
        let lines: [Substring]
        if let asked = ask(image: image, offsets: offsets, kind: "DATA") {
            lines = asked
        } else {
            let input = offsets.map { String(format: "DATA 0x%lx", $0) }.joined(separator: "\n") + "\n"
            let arguments = ["--obj=\(image)", "--no-demangle", "--output-style=JSON"]
            guard let output = Self.run(symbolizer.path, arguments: arguments, input: input) else { return nil }
            lines = output.split(separator: "\n", omittingEmptySubsequences: true)
            guard lines.count >= offsets.count else { return nil }
        }
        return lines.prefix(offsets.count).map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let data = object["Data"] as? [String: Any], let name = data["Name"] as? String, !name.isEmpty
            else { return nil }
            return name
        }
    }

    /// One answer line per offset: from the cache of earlier runs where it knows the offset, else
    /// from the running `llvm-symbolizer`; nil when the tool cannot answer (the caller then starts
    /// a tool for this batch alone, as before sessions).
    private func ask(image: String, offsets: [UInt], kind: String) -> [Substring]? {
        guard let symbolizer, symbolizer.isLLVM, SymbolizerSession.canName(image) else { return nil }
        let cached = cache.withLock { $0.answers(image: image, kind: kind, offsets: offsets) }
        let missing = offsets.indices.filter { cached[$0] == nil }
        var lines: [Substring?] = cached.map { $0.map { Substring($0) } }
        if !missing.isEmpty {
            let asked = missing.map { offsets[$0] }
            guard let answers = askTool(image: image, offsets: asked, kind: kind), answers.count >= asked.count
            else { return nil }
            toolBatches.add(1, ordering: .relaxed)
            for (position, index) in missing.enumerated() { lines[index] = answers[position] }
            cache.withLock { $0.remember(image: image, kind: kind, offsets: asked, answers: answers) }
            writeCacheOutsideJobs()
        }
        return lines.map { $0 ?? "" }
    }

    /// One answer line per offset from the running `llvm-symbolizer` (started when none runs, or
    /// when the one running is a forked parent's); nil when it cannot answer.
    private func askTool(image: String, offsets: [UInt], kind: String) -> [Substring]? {
        guard let symbolizer else { return nil }
        let prefix = "\(kind) \"\(image)\" "
        let requests = offsets.map { prefix + String(format: "0x%lx", $0) }
        // Asked under the lock (one conversation at a time); a tool that failed, or that no job
        // keeps, is ended after it.
        var (answers, ending) = session.withLock { state -> ([Substring]?, SymbolizerSession?) in
            state.forgetParent()
            if state.running == nil {
                state.running = SymbolizerSession(
                    path: symbolizer.path, arguments: ["--no-demangle", "--inlines", "--output-style=JSON"])
            }
            let answers = state.running?.ask(requests, deadline: Date() + Self.deadline)
            guard answers == nil || state.jobs == 0 else { return (answers, nil) }
            defer { state.running = nil }
            return (answers, state.running)
        }
        ending?.end()
        return answers
    }

    /// One line of `llvm-symbolizer --output-style=JSON`: `{"Address", "Symbol": [{"FunctionName",
    /// "FileName", "Line", "StartLine", …}, …]}`, innermost frame first.
    static func parseJSONFrames(_ line: Substring) -> [Result] {
        if let frames = SymbolizerAnswer.frames(line) {
            return frames.isEmpty ? [Result(function: nil, file: nil, line: nil)] : frames
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let symbols = object["Symbol"] as? [[String: Any]], !symbols.isEmpty
        else { return [Result(function: nil, file: nil, line: nil)] }
        return symbols.map { symbol in
            Result(
                answeredFunction: symbol["FunctionName"] as? String, file: symbol["FileName"] as? String,
                line: symbol["Line"] as? Int, startLine: symbol["StartLine"] as? Int)
        }
    }

    /// `swift-demangle --simplified` output for `name`, cached; nil when the tool is missing.
    func simplifiedDemangle(_ name: String) -> String? {
        if let cached = demangled.withLock({ $0[name] }) { return cached }
        guard let demangler else { return nil }
        if let known = cache.withLock({ $0.demangled([name], by: demangler) })[0] {
            demangled.withLock { $0[name] = known }
            return known
        }
        guard let output = Self.run(demangler, arguments: ["--simplified", "--compact", name], input: nil) else {
            return nil
        }
        let result = Self.trimmingASCIIWhitespace(output)
        demangled.withLock { $0[name] = result }
        cache.withLock { $0.remember(demangled: [result], of: [name], by: demangler) }
        return result
    }

    /// `text` without the spaces, tabs and line breaks around it, on its UTF-8 bytes. Not
    /// Foundation's `trimmingCharacters`: that decodes through `NSString`'s UTF-16, whose generic
    /// metadata a forked child instantiates under the runtime's lock for it — a lock another
    /// thread of the parent can hold at the fork (a child's dump at exit hung there).
    static func trimmingASCIIWhitespace(_ text: String) -> String {
        let bytes = text.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return String(text[first...last])
    }

    /// Demangles many names in one process start (none for names earlier runs demangled: see
    /// ``SymbolCache``).
    func prefetchDemangled(_ names: [String]) {
        guard let demangler else { return }
        var missing = demangled.withLock { cache in names.filter { cache[$0] == nil } }
        guard !missing.isEmpty else { return }
        let known = cache.withLock { $0.demangled(missing, by: demangler) }
        demangled.withLock { cache in
            for (name, text) in zip(missing, known) { if let text { cache[name] = text } }
        }
        missing = zip(missing, known).filter { $0.1 == nil }.map(\.0)
        guard !missing.isEmpty,
            let output = Self.run(
                demangler, arguments: ["--simplified", "--compact"], input: missing.joined(separator: "\n") + "\n")
        else { return }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= missing.count else { return }
        demangled.withLock { cache in
            for (index, name) in missing.enumerated() { cache[name] = lines[index] }
        }
        cache.withLock { $0.remember(demangled: lines, of: missing, by: demangler) }
        writeCacheOutsideJobs()
    }

    /// Outside any job, what the cache learned is written now; a job writes once, at its end.
    private func writeCacheOutsideJobs() {
        if session.withLock({ $0.jobs == 0 }) { cache.withLock { $0.writeChanged() } }
    }

    /// Runs a tool with a deadline; nil on failure.
    static func run(_ path: String, arguments: [String], input: String?) -> String? {
        guard
            let output = ChildProcess.run(
                path, arguments: arguments, input: input.map { Array($0.utf8) }, deadline: deadline)
        else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}

extension ExternalSymbolizer.Result {
    /// A frame as the tool's answer gives it: an empty or `??` name or file is unknown, and so is
    /// a start line of 0 (the one reading of both `parseJSONFrames` and `SymbolizerAnswer`).
    init(answeredFunction function: String?, file: String?, line: Int?, startLine: Int?) {
        func known(_ text: String?) -> String? { text.flatMap { $0.isEmpty || $0 == "??" ? nil : $0 } }
        self.init(
            function: known(function), file: known(file), line: line, startLine: startLine.flatMap { $0 > 0 ? $0 : nil }
        )
    }
}
