import Foundation
import LeakGraph
import LeakGraphDump

/// The later dump of a `leakgraph diff` drawn with what is new highlighted: the dot picture
/// (`--dot`) and the self-contained page (`--html`).
struct DiffPicture {
    let after: LoadedDump
    let diff: DumpDiff

    /// Members of the later dump's leaks that the earlier one did not have: every cycle of a new
    /// signature, and of a signature that grew by N cycles, its N newest (by their newest member:
    /// ids grow with allocation).
    var newObjects: Set<UInt64> {
        let newSignatures = Set(diff.newLeaks.map(\.name))
        let growth = Dictionary(diff.grownLeaks.map { ($0.name, $0.delta) }, uniquingKeysWith: +)
        var objects = Set<UInt64>()
        var grownCycles: [String: [[UInt64]]] = [:]
        for cycle in after.dump.cycles where cycle.leaked {
            if newSignatures.contains(cycle.signature) {
                objects.formUnion(cycle.objects)
            } else if growth[cycle.signature] != nil {
                grownCycles[cycle.signature, default: []].append(cycle.objects)
            }
        }
        for (signature, cycles) in grownCycles {
            let newest = cycles.sorted { ($0.max() ?? 0) > ($1.max() ?? 0) }.prefix(growth[signature] ?? 0)
            for members in newest { objects.formUnion(members) }
        }
        return objects
    }

    /// The later dump's cycles and their context, new leaks highlighted.
    func dot(title: String) -> String {
        DotExporter.render(after.dump, options: DotExporter.Options(title: title, highlighted: newObjects))
    }

    /// One offline page: the verdict, each leak of the later dump marked new / grew / still there,
    /// the leaks that vanished, the picture with new leaks highlighted, and the whole comparison.
    func page(text: String, renderer: GraphRenderer, rows: Int) -> String {
        func esc(_ text: String) -> String { HTMLEscaping.escape(text) }
        let summary = ReportBuilder.summarize(after, top: rows)
        let newSignatures = Set(diff.newLeaks.map(\.name))
        let grown = Dictionary(diff.grownLeaks.map { ($0.name, $0.delta) }, uniquingKeysWith: +)
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>LeakGraph diff: \(esc(after.path))</title>
            <style>\(HTMLReport.style).new{color:#7b2cbf;font-weight:700}.fixed{color:#2a7a2a;font-weight:700}\
            .same{color:#666}</style>
            </head>
            <body>
            <h1>LeakGraph diff</h1>
            <p class="verdict \(diff.hasNewLeaks ? "leaked" : "clean")">\(esc(diff.verdict))</p>

            """
        out += "<h2>Leaks in the later dump</h2>\n"
        if summary.leakedCycles.isEmpty { out += "<p>None.</p>\n" }
        out += "<ol class=\"verdicts\">\n"
        for group in summary.leakedCycles.prefix(rows) {
            let mark: String
            if newSignatures.contains(group.signature) {
                mark = "<span class=\"new\">★ new</span>"
            } else if let delta = grown[group.signature] {
                mark = "<span class=\"new\">★ grew +\(delta)</span>"
            } else {
                mark = "<span class=\"same\">still there</span>"
            }
            out += "<li>\(mark) \(group.count) × <code>\(esc(group.loop))</code>"
            if let verdict = group.verdict { out += "<br>\(esc(verdict))" }
            if let culprit = group.culprit { out += "<br><span class=\"culprit\">\(esc(culprit))</span>" }
            out += "</li>\n"
        }
        out += "</ol>\n"
        if !diff.vanishedLeaks.isEmpty {
            out += "<h2>Leaks that vanished (fixed)</h2>\n<ul>\n"
            for change in diff.vanishedLeaks.prefix(rows) {
                out +=
                    "<li><span class=\"fixed\">✓ fixed</span> \(change.before) × <code>\(esc(change.name))</code></li>\n"
            }
            out += "</ul>\n"
        }
        out += "<h2>The later dump, new leaks highlighted</h2>\n"
        let dot = dot(title: "leakgraph diff: \(after.path)")
        do {
            let svg = HTMLReport.uniqueIDs(try renderer.svg(fromDot: dot, source: after.path), prefix: "d-")
            out += "<div class=\"graph\" style=\"overflow:auto;border:1px solid #ddd\">\(svg)</div>\n"
        } catch {
            let note =
                renderer.isAvailable ? "Graphviz could not draw it (\(error.problem))." : GraphRenderer.installHint
            out += "<p class=\"note\">\(esc(note)) The graph in dot form:</p><pre class=\"dot\">\(esc(dot))</pre>\n"
        }
        out += "<h2>The comparison</h2>\n<pre>\(esc(text))</pre>\n</body>\n</html>\n"
        return out
    }
}
