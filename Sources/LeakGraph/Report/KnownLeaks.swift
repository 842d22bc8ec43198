import Synchronization

/// The catalog of known library leaks: LeakGraph's own entries (XCTest's test ⇄ run pairs) and
/// those libraries and users register. A leaked cycle that matches one is a library leak: shown
/// apart, counted, never a failure.
package enum KnownLeaks {
    /// Leaks of the toolchain's own libraries, found in real suites.
    static let builtIn: [KnownLeak] = [
        KnownLeak(
            library: "XCTest", pattern: "* —testRun→ XCTestCaseRun —test→ *",
            reason: "swift-corelibs-xctest keeps each test case and its run holding each other until the process "
                + "ends (the test case's own properties stay alive with them)"),
        KnownLeak(
            library: "XCTest", pattern: "* —testRun→ XCTestSuiteRun —test→ *",
            reason: "swift-corelibs-xctest keeps each test suite and its run holding each other until the process ends"),
    ]

    private static let registered = Locked<[KnownLeak]>([], heldAcrossFork: true)

    /// Adds `leak` to the catalog (see ``LeakGraph/registerKnownLeak(_:)``).
    static func register(_ leak: KnownLeak) {
        registered.withLock { leaks in
            if !leaks.contains(leak) { leaks.append(leak) }
        }
    }

    /// Every entry: the built-in ones, then the registered ones in the order they came.
    package static var all: [KnownLeak] { builtIn + registered.withLock { $0 } }

    /// Marks each leaked cycle of `report` that matches an entry of `catalog` with its
    /// ``Cycle/libraryLeak``.
    ///
    /// - Parameter keepingMarks: Leave cycles already marked (by the process that wrote a dump)
    ///   as they are.
    package static func classify(
        _ report: inout LeakReport, in snapshot: GraphSnapshot, catalog: [KnownLeak] = all, keepingMarks: Bool = false
    ) {
        // Every analysis passes here: nothing is parsed when nothing leaked.
        guard report.cycles.contains(where: \.leaked) else { return }
        // The marks that change, found first and written after: a write to cycles another value
        // shares (a dump's and its analysis's) copies all of them, 200,000 cycles for nothing
        // when none is a library's.
        for (index, mark) in changedMarks(report.cycles, in: snapshot, catalog: catalog, keepingMarks: keepingMarks) {
            report.cycles[index].libraryLeak = mark
        }
    }

    /// The positions in `cycles` whose library mark differs from the catalog's answer, with it.
    private static func changedMarks(
        _ cycles: [Cycle], in snapshot: GraphSnapshot, catalog: [KnownLeak], keepingMarks: Bool
    ) -> [(index: Int, mark: String?)] {
        var matcher = KnownLeakMatcher(catalog: catalog)
        var changes: [(index: Int, mark: String?)] = []
        for index in cycles.indices where cycles[index].leaked {
            if keepingMarks && cycles[index].libraryLeak != nil { continue }
            let mark = matcher.match(cycles[index], in: snapshot)
            if cycles[index].libraryLeak != mark { changes.append((index, mark)) }
        }
        return changes
    }
}

/// Which known library leak a cycle's loop is, one answer per signature: for the detector's
/// leaked cycles (``KnownLeaks/classify(_:in:catalog:keepingMarks:)``) and for cycles it does not
/// mark, such as a retained one (XCTest's test case and its run, alive at exit while the last
/// test's suite still holds them), whose fix lies in the library.
package struct KnownLeakMatcher {
    private let patterns: [(KnownLeak, LoopPattern)]
    private var answers: [String: String?] = [:]
    private var previous: (signature: String, answer: String?)?

    /// A matcher for `catalog` (the built-in and registered entries by default).
    package init(catalog: [KnownLeak] = KnownLeaks.all) {
        patterns = catalog.compactMap { leak in LoopPattern(leak.pattern).map { (leak, $0) } }
    }

    /// The ``KnownLeak/description`` of the entry `cycle`'s loop matches, or nil.
    package mutating func match(_ cycle: Cycle, in snapshot: GraphSnapshot) -> String? {
        guard !patterns.isEmpty else { return nil }
        // A suite's thousand identical pairs are matched once. The previous cycle's signature
        // first: repeated signatures come in runs, and comparing a string with itself is free
        // where hashing one that is not ASCII is not.
        if let (signature, answer) = previous, signature == cycle.signature { return answer }
        let answer: String?
        if let known = answers[cycle.signature] {
            answer = known
        } else {
            let loop = cycle.path.map { step in (type: snapshot.object(step.from)?.type ?? "", label: step.label) }
            answer = patterns.first { $0.1.matches(loop) }?.0.description
            answers[cycle.signature] = .some(answer)
        }
        previous = (cycle.signature, answer)
        return answer
    }
}

/// A loop with `*` wildcards, as ``KnownLeak/pattern`` and `leakgraph report --ignore` write it:
/// `Type —label→ Type —label→ Type` (ASCII `-label->` too). The last type closes the loop and may
/// be left out.
package struct LoopPattern: Sendable {
    private var types: [String]
    private var labels: [String]

    /// Parses `text`; nil when it is not a loop of at least one step.
    package init?(_ text: String) {
        let normalized = text.replacingOccurrences(of: "->", with: "→")
        var parts = normalized.split(separator: "→", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return nil }
        let closing = parts.removeLast().trimmingCharacters(in: .whitespaces)
        var types: [String] = []
        var labels: [String] = []
        for part in parts {
            // `Type —label`, or `Type -label` in ASCII: the label starts at the last dash.
            guard let dash = part.lastIndex(where: { $0 == "—" || $0 == "-" }) else { return nil }
            let type = part[..<dash].trimmingCharacters(in: .whitespaces)
            let label = part[part.index(after: dash)...].trimmingCharacters(in: .whitespaces)
            // The first step's owner may not be empty; later ones are the previous step's target.
            guard !label.isEmpty, !type.isEmpty else { return nil }
            types.append(type)
            labels.append(label)
        }
        if !closing.isEmpty && !Glob.matches(closing, types[0]) && !Glob.matches(types[0], closing) { return nil }
        self.types = types
        self.labels = labels
    }

    /// Whether `loop` (a cycle's steps, owner type and label) is this pattern in some rotation.
    package func matches(_ loop: [(type: String, label: String)]) -> Bool {
        guard loop.count == types.count else { return false }
        return loop.indices.contains { start in
            types.indices.allSatisfy { offset in
                let step = loop[(start + offset) % loop.count]
                return Glob.matches(types[offset], step.type) && Glob.matches(labels[offset], step.label)
            }
        }
    }
}

/// `*` matches any text (none too); everything else matches itself.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern.unicodeScalars)
        let text = Array(text.unicodeScalars)
        var p = 0
        var t = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count && pattern[p] != "*" && pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

extension KnownLeaks {
    /// The leaked objects that only library leaks keep alive: members of cycles marked
    /// ``Cycle/libraryLeak`` and what only they hold (a test case's own properties, kept by
    /// XCTest's pair). An object a user's leaked cycle also reaches is the user's.
    package static func libraryOnlyObjects(of report: LeakReport, in snapshot: GraphSnapshot) -> Set<UInt64> {
        let library = report.cycles.filter { $0.leaked && $0.libraryLeak != nil }
        guard !library.isEmpty else { return [] }
        let leaked = report.leakedObjectIDs
        var next: [UInt64: [UInt64]] = [:]
        for edge in snapshot.edges where edge.kind.keepsAlive && leaked.contains(edge.from) && leaked.contains(edge.to)
        {
            next[edge.from, default: []].append(edge.to)
        }
        func reach(from starts: [UInt64], avoiding: Set<UInt64> = []) -> Set<UInt64> {
            var seen = Set(starts.filter { !avoiding.contains($0) })
            var stack = Array(seen)
            while let id = stack.popLast() {
                for target in next[id, default: []] where !avoiding.contains(target) && seen.insert(target).inserted {
                    stack.append(target)
                }
            }
            return seen
        }
        let users = reach(from: report.cycles.filter { $0.leaked && $0.libraryLeak == nil }.flatMap(\.objects))
        return reach(from: library.flatMap(\.objects), avoiding: users)
    }

    /// The leaks of `report` that are the user's: its leaked cycles not marked as library leaks,
    /// and the leaked objects not kept alive only by those.
    package static func userLeaks(of report: LeakReport, in snapshot: GraphSnapshot) -> (
        cycles: [Cycle], objects: Set<UInt64>
    ) {
        let libraryOnly = libraryOnlyObjects(of: report, in: snapshot)
        return (
            report.cycles.filter { $0.leaked && $0.libraryLeak == nil },
            libraryOnly.isEmpty ? report.leakedObjectIDs : report.leakedObjectIDs.subtracting(libraryOnly)
        )
    }

    /// `1575 in XCTest` for each library, most first: what a summary line says of them.
    package static func countsByLibrary(_ cycles: [Cycle]) -> [(library: String, count: Int)] {
        var counts: [String: Int] = [:]
        for cycle in cycles where cycle.leaked {
            guard let known = cycle.libraryLeak else { continue }
            counts[KnownLeak.library(ofMark: known), default: 0] += 1
        }
        return counts.map { ($0.key, $0.value) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.library < $1.library
        }
    }
}
