import CLeakGraphSupport
import Foundation
import LeakGraph
import Synchronization

/// A check of the whole process at exit, like goleak's `VerifyTestMain`: when the test process
/// ends, every leaked cycle not in the baseline is printed and the process exits with status 1.
///
/// Call it once, for example from a test suite's static initialiser or the first test:
/// ```swift
/// ProcessLeakCheck.enable(baseline: "Tests/leak-baseline.txt")
/// ```
public enum ProcessLeakCheck {
    private static let configuration = Locked<LeakBaseline?>(nil)
    private static let armed = Atomic<Bool>(false)

    /// Arms the check. Unreadable baselines are reported and treated as empty.
    public static func enable(baseline path: String? = nil) {
        var baseline = LeakBaseline()
        if let path {
            do { baseline = try LeakBaseline(contentsOf: path) } catch {
                FileHandle.standardError.write(Data("leakgraph: \(error.description)\n".utf8))
            }
        }
        let value = baseline
        configuration.withLock { $0 = value }
        if armed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            _ = lg_atexit(processLeakCheckAtExit)
        }
    }

    /// Runs the check now; returns the text printed and whether it failed.
    public static func evaluate(baseline: LeakBaseline) -> (failed: Bool, text: String) {
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        // Library leaks (XCTest's own pairs, registered known leaks) are counted, never failed.
        let (new, accepted, stale) = baseline.compare(report.cycles.filter { $0.libraryLeak == nil })
        var lines: [String] = []
        let libraries = KnownLeaks.countsByLibrary(report.cycles)
        if !libraries.isEmpty {
            lines.append(
                "leakgraph: library leaks (not in your code, not failed): "
                    + libraries.map { "\($0.count) in \($0.library)" }.joined(separator: ", "))
        }
        if !new.isEmpty {
            lines.append("leakgraph: \(new.count) leaked cycle(s) at exit not in the baseline:")
            let ids = Set(new.flatMap(\.objects))
            lines.append(
                LeakTrace.describe(
                    snapshot,
                    report: LeakReport(cycles: new, leakedObjectIDs: ids, unknownOwners: [], finishedButHeld: []),
                    objects: ids))
            lines.append("leakgraph: signatures (add to the baseline only after review):")
            lines += Set(new.map(\.signature)).sorted().map { "  \($0)" }
        }
        if !accepted.isEmpty { lines.append("leakgraph: \(accepted.count) known leak(s) accepted by the baseline") }
        for entry in stale { lines.append("leakgraph: stale baseline entry (no longer leaks; remove it): \(entry)") }
        return (!new.isEmpty, lines.joined(separator: "\n"))
    }

    fileprivate static func runAtExit() {
        guard LeakGraph.isEnabled else {
            // Said even when a test check already said it: this is the process-wide verdict.
            _ = LeakCheck.notCheckedNoticeOnce()
            let notice =
                "leakgraph: warning: the process-wide leak check checked nothing: \(LeakCheck.notCheckedMessage)\n"
            FileHandle.standardError.write(Data(notice.utf8))
            return
        }
        let baseline = configuration.withLock { $0 } ?? LeakBaseline()
        let (failed, text) = evaluate(baseline: baseline)
        if !text.isEmpty { FileHandle.standardError.write(Data((text + "\n").utf8)) }
        if failed { _exit(1) }
    }
}

private func processLeakCheckAtExit() {
    ProcessLeakCheck.runAtExit()
}
