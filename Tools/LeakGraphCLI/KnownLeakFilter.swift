import LeakGraph
import LeakGraphDump

/// Marks the leaked cycles of a dump that are not the user's to fix, so that every command
/// shows them apart and never fails on them: those matching LeakGraph's catalog of library
/// leaks (for dumps written before the process marked them), `--ignore PATTERN`, and the
/// signatures of `--baseline FILE`.
package struct KnownLeakFilter: Sendable {
    /// Loops to ignore, as reports write them, `*` for any text.
    package var ignorePatterns: [String] = []
    /// A baseline file: leaked cycles with these signatures are accepted.
    package var baselinePath: String? = nil

    /// Creates a filter.
    package init(ignorePatterns: [String] = [], baselinePath: String? = nil) {
        self.ignorePatterns = ignorePatterns
        self.baselinePath = baselinePath
    }

    /// Marks the cycles of `dump` (and of `analysis`, which repeats them) that match.
    ///
    /// - Throws: ``ToolError`` when the baseline cannot be read.
    func apply(to dump: inout LeakGraphDump, analysis: inout LeakReport) throws(ToolError) {
        var catalog = KnownLeaks.all
        for pattern in ignorePatterns {
            catalog.append(
                KnownLeak(library: "--ignore", pattern: pattern, reason: "ignored with --ignore \"\(pattern)\""))
        }
        var baseline: Set<String> = []
        if let baselinePath {
            do { baseline = try BaselineFile.signatures(at: baselinePath) } catch { throw ToolError(error) }
        }
        var report = LeakReport(cycles: dump.cycles, leakedObjectIDs: [], unknownOwners: [], finishedButHeld: [])
        KnownLeaks.classify(&report, in: dump.snapshot, catalog: catalog, keepingMarks: true)
        for index in report.cycles.indices where report.cycles[index].leaked && report.cycles[index].libraryLeak == nil
        {
            if baseline.contains(report.cycles[index].signature), let baselinePath {
                report.cycles[index].libraryLeak = "baseline: accepted by \(baselinePath)"
            }
        }
        dump.cycles = report.cycles
        // Only the marks that differ are written: the analysis's cycles share their storage with
        // the dump's, and any write copies them all.
        if analysis.cycles.count == report.cycles.count {
            for index in analysis.cycles.indices
            where analysis.cycles[index].libraryLeak != report.cycles[index].libraryLeak {
                analysis.cycles[index].libraryLeak = report.cycles[index].libraryLeak
            }
        }
    }
}
