import Foundation
import LeakGraph

/// Renders a ``LeakSummary`` as text that reads like a leak trace.
///
/// ```
/// leakgraph-7024.json: 2 objects, 2 edges (pid 7024)
/// LEAKED: 1 cycle (1 signature), 2 objects
///
///   1 × Child —parent→ Parent —child→ Child
///       Child #2             allocated at makePair(mode:) at main.swift:22
///       Parent "example" #1  allocated at makePair(mode:) at main.swift:21
///       Fix: cut Child —parent→ Parent: make `parent` in Child weak (`weak var`, or @WeakRef) …
/// ```
package enum ReportText {
    /// The report; `limit` bounds each list (types, sites, cycles, objects).
    package static func render(_ summary: LeakSummary, limit: Int) -> String {
        let limit = max(1, limit)
        var out = "\(summary.file): \(summary.objectCount) object\(plural(summary.objectCount)), "
        out += "\(summary.edgeCount) edge\(plural(summary.edgeCount))"
        if let live = summary.liveObjectCount {
            out +=
                " of \(live) live object\(plural(live)): the cycles and what they hold (LEAKGRAPH_DUMP=full writes all)"
        }
        if let pid = summary.pid { out += " (pid \(pid))" }
        out += "\n"
        let cycleCount = summary.leakedCycles.reduce(0) { $0 + $1.count }
        if summary.hasLeaks {
            out += "LEAKED: \(cycleCount) cycle\(plural(cycleCount)) (\(summary.leakedCycles.count) signature"
            out += "\(plural(summary.leakedCycles.count))), \(summary.leakedObjectCount) object"
            out += "\(plural(summary.leakedObjectCount))\n"
        } else if !summary.possibleLeaks.isEmpty {
            out += "No certain leak, but \(summary.possibleLeaks.count) possible leak"
            out += "\(plural(summary.possibleLeaks.count)): held only by references LeakGraph could not read.\n"
        } else if let reason = summary.notChecked {
            out += "Nothing was checked: \(reason).\n"
        } else {
            out += "No leaks.\n"
        }

        let libraries = summary.libraryLeakCounts
        if !libraries.isEmpty {
            out += "Library leaks (not in your code; never a failure): "
            out += libraries.map { "\($0.count) in \($0.library)" }.joined(separator: ", ") + "\n"
        }

        if !summary.leakedCycles.isEmpty {
            out += "\nLeaked cycles (nothing outside holds them):\n"
            for group in summary.leakedCycles.prefix(limit) {
                out += "\n  \(group.count) × \(group.loop)\n"
                if let verdict = group.verdict { out += "      \(verdict)\n" }
                if let made = CycleSites.line(group.sites, limit: limit) { out += "      \(made)\n" }
                if let culprit = group.culprit { out += "      \(culprit)\n" }
                let width = min(40, group.members.map(\.displayName.count).max() ?? 0)
                for member in group.members.prefix(limit) {
                    out += "      " + pad(member.displayName, width)
                    out += "  allocated at \(member.site ?? "(no allocation stack)")\n"
                }
                if group.members.count > limit { out += "      … and \(group.members.count - limit) more member(s)\n" }
                if let hint = group.hint { out += "      \(hint.line)\n" }
            }
            out += more(summary.leakedCycles.count, limit, "signature")
        }

        if !summary.libraryLeaks.isEmpty {
            out += "\nLibrary leaks (in code you cannot change, or accepted with --ignore/--baseline): "
            out += "\(summary.libraryLeaks.reduce(0) { $0 + $1.count })\n"
            for group in summary.libraryLeaks.prefix(limit) {
                out += "  \(group.count) × \(group.loop)\n      \(group.reason)\n"
            }
            out += more(summary.libraryLeaks.count, limit, "library leak signature")
        }

        if !summary.possibleLeaks.isEmpty {
            out += "\nPossible leaks (held only by references the graph does not show, reaching memory LeakGraph "
            out += "could not read): "
            out += "\(summary.possibleLeaks.count)\n"
            for leak in summary.possibleLeaks.prefix(limit) {
                out += "  \(leak.loop)\n      \(leak.verdict)\n"
            }
            out += more(summary.possibleLeaks.count, limit, "possible leak")
        }

        out += "\nRetained cycles (alive, held from outside): \(summary.retainedCycles.count)\n"
        for cycle in summary.retainedCycles.prefix(limit) {
            out += "  \(cycle.loop)\n"
            for holder in cycle.holders.prefix(limit) {
                out += "      \(holder.object.displayName) is held from outside"
                if holder.unexplained > 0 { out += ": \(holder.unexplained) reference(s) the graph does not show" }
                out += LeakTrace.holdersText(
                    globals: holder.object.heldBy ?? [], outside: holder.object.outsideHolders ?? [])
                if !holder.knownHolders.isEmpty {
                    out +=
                        (holder.unexplained > 0 ? "; " : " by ")
                        + holder.knownHolders.map(\.displayName).joined(separator: ", ")
                }
                out += "\n"
            }
            if let hint = cycle.hint { out += "      \(hint.line) (once its outside holders let go)\n" }
            if let library = cycle.library {
                out += "      \(library) (a library's cycle: nothing to fix in your code)\n"
            }
        }
        out += more(summary.retainedCycles.count, limit, "cycle")

        out += "\nObjects with unknown owners: \(summary.unknownOwners.count)\n"
        for object in summary.unknownOwners.prefix(limit) {
            out += "  \(object.displayName): \(object.unexplained ?? 0) unexplained reference(s)"
            if object.reachesUnreadMemory == true { out += " (it reaches memory LeakGraph could not read)" }
            out += LeakTrace.holdersText(globals: object.heldBy ?? [], outside: object.outsideHolders ?? [])
            out += object.site.map { ", allocated at \($0)" } ?? ""
            out += "\n"
        }
        out += more(summary.unknownOwners.count, limit, "object")

        out += "\nFinished but still alive: \(summary.finishedButHeld.count)\n"
        for object in summary.finishedButHeld.prefix(limit) {
            out += "  \(object.displayName) (\(object.state ?? "finished"))"
            out += object.site.map { ", allocated at \($0)" } ?? ""
            out += "\n"
        }
        out += more(summary.finishedButHeld.count, limit, "object")

        out += "\nCan never finish (active, but nothing outside can send them an event; they end only when disposed): "
        out += "\(summary.canNeverFinish.count)\n"
        out += objectLines(summary.canNeverFinish, limit)
        out += "\nNever finished (still active; something outside can still send them events): "
        out += "\(summary.neverFinished.count)\n"
        out += objectLines(summary.neverFinished, limit)

        out += "\nTop types:\n" + table(summary.topTypes, heading: "type")
        out += "\nTop allocation sites:\n" + table(summary.topSites, heading: "site")
        if let owners = summary.topOwners {
            out += "\nTop owners (objects that alone keep others alive):\n"
            if owners.isEmpty { out += "  (none: no object alone keeps another alive)\n" }
            for owner in owners {
                out += "  \(owner.object) keeps \(owner.keepsAlive) object\(plural(owner.keepsAlive)) alive"
                if !owner.types.isEmpty { out += ": " + owner.types.joined(separator: ", ") }
                out += owner.leaked ? " (leaked)\n" : "\n"
            }
        }
        return out
    }

    /// One line per object with its allocation site, at most `limit`.
    static func objectLines(_ objects: [LeakSummary.ObjectEntry], _ limit: Int) -> String {
        var out = ""
        for object in objects.prefix(limit) {
            out += "  \(object.displayName)" + (object.site.map { ", allocated at \($0)" } ?? "") + "\n"
        }
        return out + more(objects.count, limit, "object")
    }

    static func table(_ rows: [LeakSummary.Tally], heading: String) -> String {
        guard !rows.isEmpty else { return "  (none)\n" }
        let width = max(5, String(rows.map(\.count).max() ?? 0).count)
        var out = "  " + pad("count", width, right: true) + "  leaked  \(heading)\n"
        for row in rows {
            out += "  " + pad(String(row.count), width, right: true) + "  " + pad(String(row.leaked), 6, right: true)
            out += "  \(row.name)\n"
        }
        return out
    }

    static func more(_ count: Int, _ limit: Int, _ noun: String) -> String {
        count > limit ? "  … and \(count - limit) more \(noun)(s) (raise --top, or use --format json)\n" : ""
    }

    static func plural(_ count: Int) -> String { count == 1 ? "" : "s" }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(0, width - text.count))
        return right ? gap + text : text + gap
    }
}
