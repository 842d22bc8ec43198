import ArgumentParser
import LeakGraph

/// `leakgraph diff <before.json> <after.json>`: what grew between two dumps.
///
/// Exit status 1 when a leak signature is new or has more cycles than before, 0 otherwise, 2
/// when a dump cannot be read.
package struct DiffCommand: ToolCommand {
    /// The command's name and help.
    package static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two dumps: growth by type and allocation site, new and vanished leaks.",
        discussion: """
            --dot and --html draw the later dump with the members of new leaks highlighted (★ new, a thick \
            double border); the page also marks each leak new, grew or still there and lists those that \
            vanished. Output files are never replaced unless --force. \
            Exit status: 0 no new leaks, 1 new leaks (a new signature, or more cycles of one), \
            2 bad usage or unreadable input, 3 nothing checked (tracking was off in the process that \
            wrote the later dump).
            """
    )

    /// The earlier dump.
    @Argument(help: "The dump taken first.")
    package var before: String

    /// The later dump.
    @Argument(help: "The dump taken later.")
    package var after: String

    /// Text or JSON.
    @Option(help: "Output format: text or json.")
    package var format: OutputFormat = .text

    /// How many rows per table.
    // Unconditional: `-1` is read as the value and refused by validate(), not taken for an option.
    @Option(parsing: .unconditional, help: "How many types and sites to show (text output).")
    package var top: Int = 20

    /// Where to write the later dump's picture (dot), new leaks highlighted.
    @Option(help: ArgumentHelp("Write the later dump's graph as dot, new leaks highlighted.", valueName: "path"))
    package var dot: String?

    /// Where to write the page.
    @Option(
        help: ArgumentHelp(
            "Write a self-contained HTML page: each leak marked new, grew or still there, the picture.",
            valueName: "path"))
    package var html: String?

    /// Replace existing output files.
    @Flag(help: "Replace --dot and --html files if they exist.")
    package var force = false

    /// Shared options.
    @OptionGroup package var options: DumpOptions

    /// Creates the command (ArgumentParser calls this).
    package init() {}

    /// Validates the options.
    package func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1") }
        if let dot, dot == html { throw ValidationError("--dot and --html must be different files") }
    }

    func perform(console: Console) async throws -> ExitStatus {
        // Refused before any work: nothing the user wrote is replaced without --force.
        for path in [dot, html].compactMap({ $0 }) { try OutputFile.checkFree(path, force: force) }
        let loader = options.loader(console: console)
        let later = try loader.load(after)
        let diff = DumpDiff(before: DumpTallies(try loader.load(before)), after: DumpTallies(later))
        var text = diff.text(before: before, after: after, limit: top)
        // A later dump that checked nothing makes every earlier leak look fixed: said first, in
        // the text itself and on stderr, and the exit status is not "clean".
        let unchecked = later.dump.summary?.notCheckedReason
        if let unchecked {
            let line = "\(after): nothing was checked: \(unchecked)"
            console.warn("leakgraph: " + line)
            text = "Warning: " + line + "; leaks below marked fixed or gone are not evidence.\n\n" + text
        }
        switch format {
        case .text: console.write(text)
        case .json: console.write(JSONOutput.encode(diff))
        }
        let picture = DiffPicture(after: later, diff: diff)
        if let dot {
            try OutputFile.write(picture.dot(title: "leakgraph diff: \(after)"), to: dot, force: force)
            if format == .text { console.write("wrote \(dot)\n") }
        }
        if let html {
            try OutputFile.write(picture.page(text: text, renderer: .graphviz, rows: top), to: html, force: force)
            if format == .text { console.write("wrote \(html)\n") }
        }
        if diff.hasNewLeaks { return .leaksFound }
        return unchecked != nil ? .notChecked : .clean
    }
}

/// The differences between two dumps' tallies.
package struct DumpDiff: Sendable, Hashable, Codable {
    /// One name's count before and after.
    package struct Change: Sendable, Hashable, Codable {
        /// The type, site or signature.
        package var name: String
        /// Count in the first dump.
        package var before: Int
        /// Count in the second dump.
        package var after: Int
        /// `after - before`.
        package var delta: Int
    }

    /// Object counts by type, largest growth first (unchanged types left out).
    package var types: [Change]
    /// Object counts by allocation site, largest growth first (unchanged sites left out).
    package var sites: [Change]
    /// Leak signatures only in the second dump.
    package var newLeaks: [Change]
    /// Leak signatures only in the first dump.
    package var vanishedLeaks: [Change]
    /// Leak signatures in both whose cycle count changed.
    package var changedLeaks: [Change]
    /// Leak signatures in both with the same number of cycles: still there, not fixed.
    package var unchangedLeaks: [Change]

    /// Whether leaks appeared: a new signature, or more cycles of a known one.
    package var hasNewLeaks: Bool { !newLeaks.isEmpty || changedLeaks.contains { $0.delta > 0 } }

    init(before: DumpTallies, after: DumpTallies) {
        func changes(_ old: [String: Int], _ new: [String: Int]) -> [Change] {
            Set(old.keys).union(new.keys).compactMap { name -> Change? in
                let (a, b) = (old[name] ?? 0, new[name] ?? 0)
                return a == b ? nil : Change(name: name, before: a, after: b, delta: b - a)
            }
            .sorted { $0.delta != $1.delta ? $0.delta > $1.delta : $0.name < $1.name }
        }
        func counts(_ tallies: [LeakSummary.Tally]) -> [String: Int] {
            Dictionary(tallies.map { ($0.name, $0.count) }, uniquingKeysWith: +)
        }
        types = changes(counts(before.types), counts(after.types))
        sites = changes(counts(before.sites), counts(after.sites))
        let leaks = changes(before.leakedSignatures, after.leakedSignatures)
        newLeaks = leaks.filter { $0.before == 0 }
        vanishedLeaks = leaks.filter { $0.after == 0 }
        changedLeaks = leaks.filter { $0.before > 0 && $0.after > 0 }
        unchangedLeaks = before.leakedSignatures.compactMap { name, count in
            after.leakedSignatures[name] == count ? Change(name: name, before: count, after: count, delta: 0) : nil
        }.sorted { $0.after != $1.after ? $0.after > $1.after : $0.name < $1.name }
    }

    /// Known signatures with more cycles than before.
    package var grownLeaks: [Change] { changedLeaks.filter { $0.delta > 0 } }
    /// Known signatures with fewer cycles than before.
    package var shrunkLeaks: [Change] { changedLeaks.filter { $0.delta < 0 } }

    /// The verdict, worded the same way as the sections above it.
    var verdict: String {
        var parts: [String] = []
        if !newLeaks.isEmpty { parts.append("\(newLeaks.count) new leak signature(s)") }
        if !grownLeaks.isEmpty {
            let cycles = grownLeaks.reduce(0) { $0 + $1.delta }
            parts.append("\(grownLeaks.count) known leak(s) grew (+\(cycles) cycle(s))")
        }
        if !parts.isEmpty { return "NEW LEAKS: " + parts.joined(separator: ", ") + "." }
        var better: [String] = []
        if !vanishedLeaks.isEmpty { better.append("\(vanishedLeaks.count) leak signature(s) vanished") }
        if !shrunkLeaks.isEmpty { better.append("\(shrunkLeaks.count) known leak(s) shrank") }
        return "No new leaks" + (better.isEmpty ? "." : ": " + better.joined(separator: ", ") + ".")
    }

    /// The comparison as text: growth and shrinkage in sections of their own, so that a reversed
    /// diff reads as shrinkage.
    func text(before: String, after: String, limit: Int) -> String {
        var out = "\(before) → \(after)\n"
        out += section("Growth by type", types.filter { $0.delta > 0 }, heading: "type", limit: limit)
        out += section("Shrinkage by type", types.filter { $0.delta < 0 }.reversed(), heading: "type", limit: limit)
        out += section("Growth by allocation site", sites.filter { $0.delta > 0 }, heading: "site", limit: limit)
        out += section(
            "Shrinkage by allocation site", sites.filter { $0.delta < 0 }.reversed(), heading: "site", limit: limit)
        out += section("New leaks", newLeaks, heading: "signature", limit: limit)
        out += section("Known leaks that grew", grownLeaks, heading: "signature", limit: limit)
        out += section("Known leaks that shrank", shrunkLeaks, heading: "signature", limit: limit)
        out += section("Leaks still there", unchangedLeaks, heading: "signature", limit: limit)
        out += section("Vanished leaks (fixed)", vanishedLeaks, heading: "signature", limit: limit)
        out += "\n\(verdict)\n"
        return out
    }

    private func section(_ title: String, _ rows: [Change], heading: String, limit: Int) -> String {
        guard !rows.isEmpty else { return "" }
        var out = "\n\(title): \(rows.count)\n"
        let width = max(6, rows.prefix(limit).map { max(String($0.before).count, String($0.after).count) }.max() ?? 0)
        out += "  " + ReportText.pad("before", width, right: true) + "  " + ReportText.pad("after", width, right: true)
        out += "  " + ReportText.pad("delta", width + 1, right: true) + "  \(heading)\n"
        for row in rows.prefix(limit) {
            out += "  " + ReportText.pad(String(row.before), width, right: true)
            out += "  " + ReportText.pad(String(row.after), width, right: true)
            out += "  " + ReportText.pad((row.delta > 0 ? "+" : "") + String(row.delta), width + 1, right: true)
            out += "  \(row.name)\n"
        }
        if rows.count > limit { out += "  … and \(rows.count - limit) more (raise --top, or use --format json)\n" }
        return out
    }
}
