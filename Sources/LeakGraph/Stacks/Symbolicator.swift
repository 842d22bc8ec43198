import CLeakGraphSupport
import Foundation
import Synchronization

/// Turns raw return addresses into readable frames, lazily and with a process-wide cache.
///
/// Function names and file:line come from `llvm-symbolizer` (or `addr2line`) when one is on the
/// `PATH` — one batch per binary image — and are demangled with the runtime's demangler (or
/// `swift-demangle --simplified` when available, for the short forms people read:
/// `closure #1 in ViewModel.bind(_:)`). Without those tools, `dladdr` names exported symbols.
/// Nothing here runs on the allocation path: only exporters call it.
public enum Symbolicator {
    /// One resolved frame.
    public struct Frame: Sendable, Hashable {
        /// Demangled function name, or nil when unknown.
        public var function: String?
        /// Source file, when debug info has it.
        public var file: String?
        /// Source line, when known.
        public var line: Int?
        /// The binary image (executable or library) file name.
        public var image: String?
        /// Whether the frame is LeakGraph's own code or the runtime, not user code.
        public var isInternal: Bool
        /// Whether the frame is in one of LeakGraph's own modules.
        public var isLeakGraph: Bool = false
        /// The line where the function starts (a closure's: the closure expression's first line),
        /// when the symbolizer says.
        public var startLine: Int? = nil

        /// `function at file:line`, or the best available part.
        public var description: String {
            var text = function ?? "???"
            if text.hasPrefix(ForwarderTargets.forwarderPrefix) {
                text.removeFirst(ForwarderTargets.forwarderPrefix.count)
            }
            // Closures in `main.swift`'s top-level code demangle with an empty context
            // (`closure #1 in `): name it.
            // (Checked before replacing, as bytes: Foundation's replace was a third of a big
            // dump's symbolication, and the standard library's `firstRange(of:)`, which walks
            // characters, a twentieth of a test process's, for names that almost never need it.)
            if text.hasSuffix(" in ") {
                text += "top-level code"
            } else if text.containsBytes(" in  ") {
                text = text.replacingOccurrences(of: " in  ", with: " in top-level code ")
            }
            if file == "/<compiler-generated>" { return text + (image.map { " (\($0))" } ?? "") }
            if let file {
                text += " at \(Symbolicator.shortPath(file))"
                if let line, line > 0 { text += ":\(line)" }
            } else if let image {
                text += " (\(image))"
            }
            return text
        }
    }

    /// Each address's frames, innermost first: the functions inlined there, then the one that
    /// holds it.
    private static let cache = Locked<[UInt: [Frame]]>([:], heldAcrossFork: true)

    /// Resolves `addresses`, one frame each: for a return address the innermost (an inlined
    /// function's, where one was inlined at the call), for a function's entry the function. Return addresses (the default) are looked up one byte back,
    /// inside the call instruction.
    public static func frames(for addresses: [UInt], returnAddresses: Bool = true) -> [Frame] {
        frameChains(for: addresses, returnAddresses: returnAddresses).map { returnAddresses ? $0[0] : $0[$0.count - 1] }
    }

    /// Resolves `addresses`, every frame of each: the functions inlined at the address, innermost
    /// first, then the function that holds it. Never empty.
    package static func frameChains(for addresses: [UInt], returnAddresses: Bool = true) -> [[Frame]] {
        let key: (UInt) -> UInt = { returnAddresses ? $0 : $0 | (1 << 63) }
        var known = cache.withLock { cache in addresses.map { cache[key($0)] } }
        let missing = Array(Set(addresses.indices.filter { known[$0] == nil }.map { addresses[$0] }))
        if !missing.isEmpty {
            let resolved = resolve(missing, returnAddresses: returnAddresses)
            cache.withLock { cache in
                for (address, frames) in resolved { cache[key(address)] = frames }
            }
            for index in addresses.indices where known[index] == nil {
                known[index] = resolved[addresses[index]]
            }
        }
        return known.map { $0 ?? [Frame(function: nil, file: nil, line: nil, image: nil, isInternal: true)] }
    }

    /// The frames of an allocation stack as reports show them: inlined frames expanded, less
    /// LeakGraph's own innermost frames (init, register, capture).
    package static func stackFrames(for addresses: [UInt]) -> [Frame] {
        var frames = frameChains(for: addresses).flatMap { $0 }
        frames.removeFirst(ownFrameCount(frames))
        return frames
    }

    /// How many of a stack's innermost frames are LeakGraph's own (the capture and the hooks
    /// that called it), leaving at least one frame. Only frames known to be LeakGraph's, and
    /// frames with no name at all (a stripped build's own capture): a library frame without a
    /// file is the allocating code itself (whole-process stacks start at the allocating
    /// function, `one-time initialization function for _mainBundle` in Foundation), and was
    /// dropped with LeakGraph's own.
    static func ownFrameCount(_ frames: [Frame]) -> Int {
        let own = frames.prefix { frame in
            guard !frame.isLeakGraph else { return true }
            guard frame.file == nil else { return false }
            let function = frame.function ?? "0x"
            // Unnamed, LeakGraph's C support without debug information (`lg_capture_stack`), or
            // the runtime entry points it defines when they call it without a tail call (the
            // runtime's own are in libswiftCore).
            return function.hasPrefix("0x") || function.hasPrefix("lg_")
                || (interposedEntryPoints.contains(function) && frame.image?.hasPrefix("libswiftCore") != true)
        }.count
        return min(own, frames.count - 1)
    }

    /// The Swift runtime's entry points LeakGraph's C support defines for whole-process tracking.
    static let interposedEntryPoints: Set<String> = [
        "swift_allocObject", "swift_deallocObject", "swift_deallocClassInstance", "swift_deallocUninitializedObject",
        "swift_deallocPartialClassInstance",
    ]

    /// The index in `frames` of the frame a report names as the allocation site: the first frame
    /// of the user's own package with a real line.
    ///
    /// Compiler-made initialisers (line 0) and allocating entry points only repeat the type name.
    /// A `TrackedObject` subclass registers in `TrackedObject.init`, reached through its own
    /// initialisers (`Pet.init()` calling `super.init()`): the site is the caller of its allocating
    /// initialiser, not the `init` every such object shares. The root package's code is
    /// preferred to a dependency's (a checkout, a path dependency, the toolchain's libraries): a
    /// Combine leak is made by the line that subscribed, not by OpenCombine's internals.
    package static func userFrameIndex(in frames: [Frame], roots: [String]? = rootPackage) -> Int? {
        var start = 0
        if let allocating = frames.prefix(24).firstIndex(where: {
            $0.function?.containsBytes("__allocating_init") == true
        }),
            frames[..<allocating].allSatisfy({ $0.isInternal || isInitializer($0) })
        {
            start = allocating + 1
        }
        func isUserLine(_ frame: Frame) -> Bool {
            !frame.isInternal && (frame.line ?? 0) > 0 && !(frame.function ?? "").containsBytes("__allocating_init")
                && !isGeneratedFile(frame.file ?? "")
        }
        let candidates = frames.indices.dropFirst(start)
        return candidates.first { isUserLine(frames[$0]) && !isDependencyFile(frames[$0].file ?? "", roots: roots) }
            ?? candidates.first { isUserLine(frames[$0]) }
            ?? frames.indices.first { isUserLine(frames[$0]) }
            ?? frames.indices.first {
                guard !frames[$0].isInternal, let file = frames[$0].file else { return false }
                // Code the compiler or the package manager made names nothing of the user's
                // (the test runner's `static Runner.$main()`, at `/<compiler-generated>`).
                return !isGeneratedFile(file) && file != "/<compiler-generated>"
            }
    }

    /// Whether `file` is one the package manager wrote into its build folder: the test runner
    /// (`….derived/runner.swift`), the discovered tests' lists, a resource bundle's accessor.
    /// Never the user's line: what Foundation and XCTest make at a test process's start was
    /// reported "allocated at static Runner.main() at …/runner.swift:543".
    static func isGeneratedFile(_ file: String) -> Bool {
        // By the folders SwiftPM names, wherever the build folder is (`--scratch-path`).
        file.containsBytes(".derived/") || file.containsBytes("/DerivedSources/")
    }

    /// `Pet.init()`, `Pet.init(name:)`: an initialiser, which a subclass's chain runs through.
    private static func isInitializer(_ frame: Frame) -> Bool {
        guard let function = frame.function else { return false }
        return function.containsBytes(".init(") && !function.hasPrefix("closure ")
    }

    /// `snapshot` symbolicated when some stack or capturing closure has raw addresses only;
    /// else `snapshot` itself (the exporters' convenience entry points call this).
    package static func symbolicatedIfNeeded(_ snapshot: GraphSnapshot) -> GraphSnapshot {
        let needsSymbols =
            snapshot.stacks.contains(where: \.needsSymbolication)
            || snapshot.edges.contains { $0.closureAddress != nil && $0.closure == nil }
        return needsSymbols ? symbolicate(snapshot) : snapshot
    }

    /// Fills in the frames of every stack in `snapshot` and the names of capturing closures.
    public static func symbolicate(_ snapshot: GraphSnapshot) -> GraphSnapshot {
        symbolicate(snapshot, stacks: nil)
    }

    /// Fills in the frames of the stacks with ids in `stacks` (all when nil) and the names of
    /// capturing closures, tasks and closure contexts: a dump that writes a few cycles of a big
    /// process symbolizes only their stacks (a real suite's exit had symbolized 2,800 stacks to
    /// write 44 objects).
    package static func symbolicate(_ snapshot: GraphSnapshot, stacks wanted: Set<Int>?) -> GraphSnapshot {
        var result = snapshot
        symbolicate(&result, stacks: wanted)
        return result
    }

    /// ``symbolicate(_:stacks:)`` in place: a caller that owns the only reference to the
    /// snapshot's arrays has them changed where they are, not copied (a million objects' copy
    /// was 136 MB of a dump at exit).
    package static func symbolicate(_ snapshot: inout GraphSnapshot, stacks wanted: Set<Int>?) {
        // Allocation stacks, task entry points and closures: one symbolizer for the three.
        ExternalSymbolizer.shared.withSession { symbolicateNow(&snapshot, stacks: wanted) }
    }

    private static func symbolicateNow(_ result: inout GraphSnapshot, stacks wanted: Set<Int>?) {
        nameTasks(&result)
        func needed(_ stack: StackInfo) -> Bool {
            stack.needsSymbolication && (wanted.map { $0.contains(stack.id) } ?? true)
        }
        let stackAddresses = result.stacks.filter(needed).flatMap(\.addresses)
        let closureAddresses = result.edges.compactMap { $0.closure == nil ? $0.closureAddress : nil }
        guard !stackAddresses.isEmpty || !closureAddresses.isEmpty else { return }
        // Resolved all at once (one symbolizer batch per image). Stacks share most of their
        // frames (a test runner's, a loop's), so each address's frames and their text are made
        // once, not once per stack (the text was a third of a real suite's symbolication).
        let uniqueAddresses = Array(Set(stackAddresses))
        let chains = Dictionary(uniqueKeysWithValues: zip(uniqueAddresses, frameChains(for: uniqueAddresses)))
        let texts = chains.mapValues { $0.map(\.description) }
        for index in result.stacks.indices where needed(result.stacks[index]) {
            var frames: [Frame] = []
            var descriptions: [String] = []
            for address in result.stacks[index].addresses {
                guard let chain = chains[address], let text = texts[address] else { continue }
                frames += chain
                descriptions += text
            }
            guard !frames.isEmpty else { continue }
            let own = ownFrameCount(frames)
            frames.removeFirst(own)
            descriptions.removeFirst(own)
            result.stacks[index].frames = descriptions
            result.stacks[index].userFrame = userFrameIndex(in: frames)
        }
        if !closureAddresses.isEmpty {
            let uniqueClosures = Array(Set(closureAddresses))
            // A closure's own frame is the outermost at its entry address (nothing runs inlined
            // before its first instruction that a report should name instead).
            // A thunk that forwards to the closure is named by the closure's own line.
            let names = ForwarderTargets.sourced(
                Dictionary(
                    uniqueKeysWithValues: zip(
                        uniqueClosures, frameChains(for: uniqueClosures, returnAddresses: false).map { $0.last! })))
            for index in unnamedClosureEdges(result.edges) {
                // Marked so that hints can tell LeakGraph's own closures from the user's.
                result.edges[index].closure = result.edges[index].closureAddress.flatMap { names[$0] }.map {
                    $0.description + ($0.isLeakGraph ? " " + ownClosureMarker : "")
                }
            }
            nameClosureContexts(&result, names: names)
        }
    }

    /// The positions of the edges through a closure that has no name yet (found by reading
    /// first: see ``nameTasks(_:)``).
    private static func unnamedClosureEdges(_ edges: [EdgeInfo]) -> [Int] {
        edges.indices.filter { edges[$0].closure == nil && edges[$0].closureAddress != nil }
    }

    /// A task's "stack" is the code addresses in its header (see `HeapWalker.task`): entry points
    /// of the partial functions it resumes in, not return addresses. The first one outside the
    /// runtime names it (`waiting in closure #1 in Listener.start() at Listener.swift:12`, its
    /// label), and the last, where it is another function, names the closure it was started with
    /// (`…, task started in closure #1 in Pool.start() at Pool.swift:30`); it has no allocation
    /// stack.
    static func nameTasks(_ snapshot: inout GraphSnapshot) {
        // Found first by reading, then named: a loop that may write the objects has their array
        // made unique before it starts (the optimiser hoists that out of the loop), which copied
        // every object of a snapshot shared with its caller — a million of them at exit, for no
        // task at all.
        let tasks = taskPositions(snapshot.objects)
        guard !tasks.isEmpty else { return }
        for index in tasks {
            guard let stack = snapshot.objects[index].stack, snapshot.stacks.indices.contains(stack),
                snapshot.stacks[stack].needsSymbolication
            else { continue }
            let frames = frameChains(for: snapshot.stacks[stack].addresses, returnAddresses: false).compactMap(\.last)
            snapshot.stacks[stack].frames = frames.map(\.description)
            snapshot.objects[index].stack = nil
            // The user's own function first: a thunk the compiler made forwards to it.
            let candidates = frames.filter { frame in
                !frame.isInternal && !frame.isLeakGraph && frame.function.map { !$0.contains("thunk") } ?? false
            }
            // A line of the user's source before code the compiler made in the user's image (a
            // specialised `Clock.sleep`, at `/<compiler-generated>`).
            func isSourced(_ frame: Frame) -> Bool {
                frame.file != nil && frame.file != "/<compiler-generated>" && (frame.line ?? 0) > 0
            }
            let sourced = candidates.first(where: isSourced)
            if let frame = sourced ?? candidates.first(where: { $0.file != nil }) ?? candidates.first {
                // The outermost function of the program's own in the chain is the closure the
                // task was started with (`Task { … }`): said where it is not where the task waits,
                // as a task waiting in a library's helper tells nothing of whose it is.
                let origin = candidates.last(where: isSourced).flatMap { origin in
                    origin.function != frame.function ? TaskNode.startedSeparator + origin.description : nil
                }
                // Its status, when the walk read one, after a middle dot: `waiting in f() · suspended`.
                let status = snapshot.objects[index].label
                let verb = status?.hasPrefix("running") == true ? "running" : "waiting"
                snapshot.objects[index].label =
                    "\(verb) in \(frame.description)\(origin ?? "")"
                    + (status.map { TaskNode.statusSeparator + $0 } ?? "")
            }
        }
    }

    /// The positions of the tasks among `objects`.
    private static func taskPositions(_ objects: [ObjectInfo]) -> [Int] {
        objects.indices.filter { objects[$0].type == TaskNode.typeName }
    }

    /// A closure context recorded by whole-process tracking is named after its closure, known
    /// from the function word stored beside the context in the field that holds it.
    private static func nameClosureContexts(_ snapshot: inout GraphSnapshot, names: [UInt: Frame]) {
        var contexts: [UInt64: Int] = [:]
        for (index, object) in snapshot.objects.enumerated() where object.type == closureContextType {
            contexts[object.id] = index
        }
        guard !contexts.isEmpty else { return }
        for edge in snapshot.edges {
            guard let index = contexts[edge.to], let address = edge.closureAddress,
                let function = names[address]?.function
            else { continue }
            // Thunks name the closure they forward to: "partial apply for closure #1 in f()".
            var name = Substring(function)
            for prefix in [ForwarderTargets.forwarderPrefix, "reabstraction thunk helper from "]
            where name.hasPrefix(prefix) {
                name = name.dropFirst(prefix.count)
            }
            snapshot.objects[index].type = ObjectInfo.namedClosureContextPrefix + name
            contexts[edge.to] = nil
        }
    }

    /// The type name a snapshot gives a closure context before it is symbolicated.
    static let closureContextType = "closure context"

    /// Appended to the names of closures inside LeakGraph's own modules.
    public static let ownClosureMarker = "[LeakGraph]"

    /// `path` as reports show it, the same whatever the working directory: relative to its
    /// package's root (the nearest folder above it with a `Package.swift`), prefixed with the
    /// package's folder name for a dependency checked out by SwiftPM or Xcode
    /// (`OpenCombine/Sources/OpenCombine/Map.swift`); the whole path when no package holds it.
    /// (It was relative to the working directory: the same dump taken from two folders showed
    /// different allocation sites, and `leakgraph diff` reported growth that did not happen.)
    static func shortPath(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        // A few hundred files name every frame of a dump: each is worked out once.
        if let known = shortPaths.withLock({ $0[path] }) { return known }
        let short = computeShortPath(path)
        shortPaths.withLock { $0[path] = short }
        return short
    }

    private static let shortPaths = Locked<[String: String]>([:], heldAcrossFork: true)

    private static func computeShortPath(_ path: String) -> String {
        if let checkouts = path.range(of: "/checkouts/", options: .backwards) {
            return String(path[checkouts.upperBound...])
        }
        guard let root = packageRoot(containing: path) else { return path }
        let relative = String(path.dropFirst(root.count + 1))
        // Another package than the root one (a path dependency) is named, as a checkout is:
        // `Lib/Sources/Lib/Lib.swift`, never taken for the user's own `Sources/…`.
        if let roots = rootPackage, !roots.contains(root), let name = root.split(separator: "/").last {
            return name + "/" + relative
        }
        return relative
    }

    /// Package roots by source folder (nil: none above it), looked up once per folder.
    private static let packageRoots = Locked<[String: String?]>([:], heldAcrossFork: true)

    private static func packageRoot(containing path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let folder = String(path[..<slash])
        if let known = packageRoots.withLock({ $0[folder] }) { return known }
        // Filesystem checks outside the lock; a race only repeats them.
        var candidate = Substring(folder)
        var root: String? = nil
        while !candidate.isEmpty {
            if FileManager.default.fileExists(atPath: candidate + "/Package.swift") {
                root = String(candidate)
                break
            }
            guard let up = candidate.lastIndex(of: "/") else { break }
            candidate = candidate[..<up]
        }
        // Inserted only if absent: replacing a racing thread's equal entry would release a
        // string inside the lock.
        packageRoots.withLock { roots in
            if roots.index(forKey: folder) == nil { roots[folder] = .some(root) }
        }
        return root
    }

    private static let ownModulePrefixes = [
        "$s9LeakGraph", "$s11LeakGraphRx", "$s16LeakGraphTesting", "$s16LeakGraphCombine", "$s13LeakGraphDump",
        "$s15LeakGraphRxTest", "$s16LeakGraphRxCocoa", "$s19LeakGraphRxBlocking",
    ]
    private static let ownSourceDirectories = [
        "/Sources/LeakGraph/", "/Sources/LeakGraphRx/", "/Sources/LeakGraphTesting/", "/Sources/LeakGraphCombine/",
        "/Sources/LeakGraphDump/", "/Sources/CLeakGraphSupport/", "/Sources/LeakGraphRxTest/",
        "/Sources/LeakGraphRxCocoa/", "/Sources/LeakGraphRxBlocking/",
    ]

    /// Whether `file` is outside the user's own package: in a dependency checked out by SwiftPM
    /// (`.build/checkouts`) or Xcode (`SourcePackages/checkouts`), in a path dependency, or
    /// anywhere else outside the root package (the toolchain's libraries, built elsewhere).
    /// Without a known root package, only checkouts count.
    static func isDependencyFile(_ file: String, roots: [String]? = rootPackage) -> Bool {
        if file.containsBytes("/checkouts/") { return true }
        // A path as reports show it (relative to its package) says nothing more.
        guard let roots, file.hasPrefix("/") else { return false }
        return !roots.contains { root in file.hasPrefix(root + "/") && !file.hasPrefix(root + "/.build/") }
    }

    /// The folder of the package the process was built from (both as given and with symlinks
    /// resolved, as debug info keeps the path the compiler was given): `LEAKGRAPH_ROOT_PACKAGE`
    /// when set, else the folder holding the `.build` the executable runs from, else the working
    /// directory when it holds a `Package.swift`.
    static let rootPackage: [String]? = {
        func forms(_ path: String) -> [String] {
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            let resolved = URL(fileURLWithPath: trimmed).resolvingSymlinksInPath().path
            return resolved == trimmed ? [trimmed] : [trimmed, resolved]
        }
        if let root = ProcessInfoLite.value(of: "LEAKGRAPH_ROOT_PACKAGE"), !root.isEmpty { return forms(root) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if let build = executable.range(of: "/.build/") {
            return forms(String(executable[..<build.lowerBound]))
        }
        let current = FileManager.default.currentDirectoryPath
        if FileManager.default.fileExists(atPath: current + "/Package.swift") { return forms(current) }
        return nil
    }()

    /// Whether `path` (absolute) is in a package manager's checkout of a fetched dependency
    /// (SwiftPM's `.build/checkouts`, Xcode's `SourcePackages/checkouts`): code the user cannot
    /// change, unlike a local path dependency.
    static func isCheckoutFile(_ path: String) -> Bool { path.containsBytes("/checkouts/") }

    /// The package whose file `path` is, as reports show paths (``shortPath(_:)``: another
    /// package's file is `swift-nio/Sources/NIOCore/ChannelPipeline.swift`, the root package's
    /// `Sources/App/Model.swift`): `swift-nio`; nil for the root package's files and for paths
    /// that say nothing (absolute, or outside any package's `Sources`). A local path
    /// dependency's files look the same as a checkout's: only frames are judged by this, never
    /// a declaration (``FieldDeclaration/isInDependency`` is recorded from the full path).
    package static func dependencyName(ofShortPath path: String) -> String? {
        let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == "Sources", !parts[0].isEmpty, parts[0] != "Sources", parts[0] != "Tests"
        else { return nil }
        return String(parts[0])
    }

    static func isLeakGraphFile(_ file: String) -> Bool {
        ownSourceDirectories.contains { file.containsBytes($0) }
    }

    /// Whether a mangled symbol is one of LeakGraph's own modules' (`$s9LeakGraph…`, …).
    static func isLeakGraphSymbol(_ mangled: String) -> Bool {
        ownModulePrefixes.contains { mangled.hasPrefix($0) }
    }

    private struct Located {
        let address: UInt
        /// The address looked up: a return address less one, inside the call.
        let lookup: UInt
        let offset: UInt
        /// The symbol table's name, looked up only for a frame the symbolizer could not name.
        var exportedSymbol: String? = nil
    }

    private static func resolve(_ addresses: [UInt], returnAddresses: Bool) -> [UInt: [Frame]] {
        var byImage: [String: [Located]] = [:]
        var result: [UInt: [Frame]] = [:]
        let images = LoadedImages()
        for address in addresses {
            let lookup = returnAddresses && address > 0 ? address - 1 : address
            guard let image = images.image(containing: lookup) else {
                result[address] = [Frame(function: String(format: "0x%lx", address), image: nil, isInternal: true)]
                continue
            }
            byImage[image.path, default: []].append(
                Located(address: address, lookup: lookup, offset: lookup - image.base))
        }
        var externalResults: [String: [[ExternalSymbolizer.Result]]] = [:]
        var mangledNames: [String] = []
        for (image, located) in byImage {
            let found = ExternalSymbolizer.shared.symbolize(image: image, offsets: located.map(\.offset))
            if let found {
                externalResults[image] = found
                mangledNames += found.joined().compactMap { $0.function?.hasPrefix("$s") == true ? $0.function : nil }
            }
            // The symbol table names the outermost function where the symbolizer could not.
            var named = located
            for index in named.indices where found?[index].last?.function == nil {
                named[index].exportedSymbol = LoadedImages.exportedSymbol(at: named[index].lookup)
                if let symbol = named[index].exportedSymbol, symbol.hasPrefix("$s") { mangledNames.append(symbol) }
            }
            byImage[image] = named
        }
        ExternalSymbolizer.shared.prefetchDemangled(Array(Set(mangledNames)))
        for (image, located) in byImage {
            let external = externalResults[image]
            let imageName = (image as NSString).lastPathComponent
            let isSystemImage =
                image.hasPrefix("/usr/lib") || image.hasPrefix("/lib") || image.containsBytes("/usr/lib/swift/")
            for (index, entry) in located.enumerated() {
                let chain = external?[index] ?? [ExternalSymbolizer.Result(function: nil, file: nil, line: nil)]
                result[entry.address] = chain.enumerated().map { depth, found in
                    // The symbol table names the outermost function when the symbolizer cannot.
                    let mangled = found.function ?? (depth == chain.count - 1 ? entry.exportedSymbol : nil)
                    let function = mangled.map(demangle)
                    let file = Self.sourceFile(found.file, line: found.line, symbol: mangled)
                    let isOwn =
                        mangled.map(isLeakGraphSymbol) ?? false
                        || file.map(isLeakGraphFile) ?? false
                    return Frame(
                        function: function ?? String(format: "0x%lx", entry.offset), file: file, line: found.line,
                        image: imageName, isInternal: isOwn || isSystemImage || file == nil, isLeakGraph: isOwn,
                        startLine: found.startLine)
                }
            }
        }
        return result
    }

    /// The file a symbolizer's answer names, unless it only guessed it: with no line (no debug
    /// information) the file is the symbol table's last file entry before the function, which
    /// only some objects write. A Swift or C++ function of a toolchain library then reads
    /// `crtstuff.c` (`XCTMainMisc(_:arguments:observers:) at crtstuff.c`), and so do C functions
    /// of files that wrote none (`CFBasicHashCreate at crtstuff.c`): `crtstuff.c`, and a C file
    /// for a Swift or C++ function, are dropped. Every other answer is kept: Swift's thunks and
    /// specialisations are at line 0 of `/<compiler-generated>`, which says they are the
    /// compiler's, in the image that holds them.
    static func sourceFile(_ file: String?, line: Int?, symbol: String?) -> String? {
        guard let file, (line ?? 0) == 0 else { return file }
        // The C runtime's start-up file holds only its own few functions, all with names of its own.
        if file == "crtstuff.c" || file.hasSuffix("/crtstuff.c") { return nil }
        guard let symbol, file.hasSuffix(".c") else { return file }
        let isSwiftOrCPlusPlus = symbol.hasPrefix("$s") || symbol.hasPrefix("_$s") || symbol.hasPrefix("_Z")
        return isSwiftOrCPlusPlus ? nil : file
    }

    /// Demangles a Swift symbol into its short form, and a C++ one (`_ZN5swift…` →
    /// `swift::threading_impl::once_slow(…)`); other names are returned unchanged.
    public static func demangle(_ name: String) -> String {
        if name.hasPrefix("_Z") { return demangleCPlusPlus(name) ?? name }
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S") else { return name }
        if let simplified = ExternalSymbolizer.shared.simplifiedDemangle(name) { return simplified }
        return name.withCString { pointer in
            guard let output = runtimeDemangle(pointer, UInt(strlen(pointer)), nil, nil, 0) else { return name }
            defer { free(output) }
            return String(cString: output)
        }
    }

    /// The C++ runtime's `__cxa_demangle`, looked up rather than linked: the Swift runtime brings
    /// the C++ library into every process, but an executable that named it would need it on its
    /// link line. Kept as an address (a plain value, so `Sendable`); 0 when absent.
    private static let cxaDemangleAddress: UInt = {
        #if canImport(Darwin)
            let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return UInt(bitPattern: dlsym(everywhere, "__cxa_demangle"))
    }()

    private typealias CXADemangle =
        @convention(c) (
            UnsafePointer<CChar>, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int32>?
        ) -> UnsafeMutablePointer<CChar>?

    /// `name` demangled as C++, or nil when it is not a C++ name or no demangler is loaded.
    static func demangleCPlusPlus(_ name: String) -> String? {
        guard let address = UnsafeRawPointer(bitPattern: cxaDemangleAddress) else { return nil }
        let demangle = unsafeBitCast(address, to: CXADemangle.self)
        var status: Int32 = -1
        guard let output = name.withCString({ demangle($0, nil, nil, &status) }) else { return nil }
        defer { free(output) }
        return status == 0 ? String(cString: output) : nil
    }
}
