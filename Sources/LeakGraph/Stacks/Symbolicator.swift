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

        /// `function at file:line`, or the best available part.
        public var description: String {
            var text = function ?? "???"
            if text.hasPrefix("partial apply for ") { text.removeFirst("partial apply for ".count) }
            // Closures in `main.swift`'s top-level code demangle with an empty context
            // (`closure #1 in `): name it.
            if text.hasSuffix(" in ") {
                text += "top-level code"
            } else {
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

    private static let cache = Locked<[UInt: Frame]>([:])

    /// Resolves `addresses`. Return addresses (the default) are looked up one byte back, inside
    /// the call instruction.
    public static func frames(for addresses: [UInt], returnAddresses: Bool = true) -> [Frame] {
        let key: (UInt) -> UInt = { returnAddresses ? $0 : $0 | (1 << 63) }
        var known = cache.withLock { cache in addresses.map { cache[key($0)] } }
        let missing = Array(Set(addresses.indices.filter { known[$0] == nil }.map { addresses[$0] }))
        if !missing.isEmpty {
            let resolved = resolve(missing, returnAddresses: returnAddresses)
            cache.withLock { cache in
                for (address, frame) in resolved { cache[key(address)] = frame }
            }
            for index in addresses.indices where known[index] == nil {
                known[index] = resolved[addresses[index]]
            }
        }
        return known.map { $0 ?? Frame(function: nil, file: nil, line: nil, image: nil, isInternal: true) }
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
        var result = snapshot
        let stackAddresses = snapshot.stacks.filter(\.needsSymbolication).flatMap(\.addresses)
        let closureAddresses = snapshot.edges.compactMap { $0.closure == nil ? $0.closureAddress : nil }
        guard !stackAddresses.isEmpty || !closureAddresses.isEmpty else { return result }
        let unique = Array(Set(stackAddresses))
        let resolved = Dictionary(uniqueKeysWithValues: zip(unique, frames(for: unique)))
        for index in result.stacks.indices where result.stacks[index].needsSymbolication {
            var frames = result.stacks[index].addresses.map { resolved[$0]! }
            // Drop LeakGraph's own innermost frames (init, register, capture).
            while frames.count > 1, frames[0].isInternal, frames[0].file == nil || isLeakGraphFile(frames[0].file!) {
                frames.removeFirst()
            }
            result.stacks[index].frames = frames.map(\.description)
            // The first user frame with a real line: compiler-made initialisers (line 0) and
            // allocating entry points only repeat the type name. The user's own code is preferred
            // to a dependency's (`.build/checkouts`): a Combine leak is made by the line that
            // subscribed, not by OpenCombine's internals.
            func isUserLine(_ frame: Frame) -> Bool {
                !frame.isInternal && (frame.line ?? 0) > 0 && !(frame.function ?? "").contains("__allocating_init")
            }
            result.stacks[index].userFrame =
                frames.firstIndex { isUserLine($0) && !isDependencyFile($0.file ?? "") }
                ?? frames.firstIndex(where: isUserLine)
                ?? frames.firstIndex { !$0.isInternal && $0.file != nil }
        }
        if !closureAddresses.isEmpty {
            let uniqueClosures = Array(Set(closureAddresses))
            let names = Dictionary(
                uniqueKeysWithValues: zip(uniqueClosures, frames(for: uniqueClosures, returnAddresses: false)))
            for index in result.edges.indices {
                if result.edges[index].closure == nil, let address = result.edges[index].closureAddress {
                    // Marked so that hints can tell LeakGraph's own closures from the user's.
                    result.edges[index].closure = names[address].map {
                        $0.description + ($0.isLeakGraph ? " " + ownClosureMarker : "")
                    }
                }
            }
            nameClosureContexts(&result, names: names)
        }
        return result
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
            for prefix in ["partial apply for ", "reabstraction thunk helper from "] where name.hasPrefix(prefix) {
                name = name.dropFirst(prefix.count)
            }
            snapshot.objects[index].type = "context of \(name)"
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
        if let checkouts = path.range(of: "/checkouts/", options: .backwards) {
            return String(path[checkouts.upperBound...])
        }
        guard let root = packageRoot(containing: path) else { return path }
        return String(path.dropFirst(root.count + 1))
    }

    /// Package roots by source folder (nil: none above it), looked up once per folder.
    private static let packageRoots = Locked<[String: String?]>([:])

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
    ]
    private static let ownSourceDirectories = [
        "/Sources/LeakGraph/", "/Sources/LeakGraphRx/", "/Sources/LeakGraphTesting/", "/Sources/LeakGraphCombine/",
        "/Sources/LeakGraphDump/", "/Sources/CLeakGraphSupport/",
    ]

    /// Whether `file` belongs to a package dependency checked out by SwiftPM (`.build/checkouts`)
    /// or Xcode (`SourcePackages/checkouts`).
    static func isDependencyFile(_ file: String) -> Bool {
        file.contains("/checkouts/")
    }

    static func isLeakGraphFile(_ file: String) -> Bool {
        ownSourceDirectories.contains { file.contains($0) }
    }

    private struct Located {
        let address: UInt
        let image: String
        let offset: UInt
        let exportedSymbol: String?
    }

    private static func resolve(_ addresses: [UInt], returnAddresses: Bool) -> [UInt: Frame] {
        var byImage: [String: [Located]] = [:]
        var result: [UInt: Frame] = [:]
        for address in addresses {
            let lookup = returnAddresses && address > 0 ? address - 1 : address
            var path: UnsafePointer<CChar>?
            var base: UInt = 0
            var symbol: UnsafePointer<CChar>?
            var symbolAddress: UInt = 0
            guard lg_dladdr(lookup, &path, &base, &symbol, &symbolAddress) != 0, let path else {
                result[address] = Frame(function: String(format: "0x%lx", address), image: nil, isInternal: true)
                continue
            }
            let image = String(cString: path)
            byImage[image, default: []].append(
                Located(
                    address: address, image: image, offset: lookup - base,
                    exportedSymbol: symbol.map { String(cString: $0) }))
        }
        var externalResults: [String: [ExternalSymbolizer.Result]] = [:]
        var mangledNames: [String] = []
        for (image, located) in byImage {
            if let found = ExternalSymbolizer.shared.symbolize(image: image, offsets: located.map(\.offset)) {
                externalResults[image] = found
                mangledNames += found.compactMap { $0.function?.hasPrefix("$s") == true ? $0.function : nil }
            }
            mangledNames += located.compactMap { $0.exportedSymbol?.hasPrefix("$s") == true ? $0.exportedSymbol : nil }
        }
        ExternalSymbolizer.shared.prefetchDemangled(Array(Set(mangledNames)))
        for (image, located) in byImage {
            let external = externalResults[image]
            for (index, entry) in located.enumerated() {
                let found = external?[index]
                let mangled = found?.function ?? entry.exportedSymbol
                let function = mangled.map(demangle)
                let file = found?.file
                let isSystemImage =
                    image.hasPrefix("/usr/lib") || image.hasPrefix("/lib") || image.contains("/usr/lib/swift/")
                let isOwn =
                    mangled.map { name in ownModulePrefixes.contains { name.hasPrefix($0) } } ?? false
                    || file.map(isLeakGraphFile) ?? false
                result[entry.address] = Frame(
                    function: function ?? String(format: "0x%lx", entry.offset), file: file, line: found?.line,
                    image: (image as NSString).lastPathComponent, isInternal: isOwn || isSystemImage || file == nil,
                    isLeakGraph: isOwn)
            }
        }
        return result
    }

    /// Demangles a Swift symbol into its short form; other names are returned unchanged.
    public static func demangle(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S") else { return name }
        if let simplified = ExternalSymbolizer.shared.simplifiedDemangle(name) { return simplified }
        return name.withCString { pointer in
            guard let output = runtimeDemangle(pointer, UInt(strlen(pointer)), nil, nil, 0) else { return name }
            defer { free(output) }
            return String(cString: output)
        }
    }
}
