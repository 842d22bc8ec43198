import Foundation
import LeakGraph

/// Builds the self-contained HTML page of `leakgraph html`: inline CSS, inline SVG and a small
/// inline script for panning and zooming, no external resources, so that it works offline and
/// can be attached to a bug report.
///
/// The page opens with one sentence per leak (what leaked, what holds it, the line to fix). Each
/// graph opens fitted to its column as far as its smallest text stays 10 px or larger (a graph
/// that fits is shown at 100 %, the size its text was laid out to be read at; a wider one is
/// scaled down to the column, or to that floor and panned) inside a viewport that pans (drag,
/// arrow keys) and zooms (the buttons, Ctrl/⌘ + wheel, `+`/`-`, `0` for 100 %).
struct HTMLReport {
    let loaded: LoadedDump
    let summary: LeakSummary
    let renderer: GraphRenderer
    /// How many leaked cycle groups are drawn (each costs one `dot` run).
    let drawnGroups: Int
    /// How many rows per table.
    let rows: Int

    func render() -> String {
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>LeakGraph report: \(esc(summary.file))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <h1>LeakGraph report</h1>
            <p class="file">\(esc(summary.file))</p>

            """
        page += verdicts()
        page += summaryTable()
        page += leakedCycles()
        page += libraryLeaks()
        page += possibleLeaks()
        page += retainedCycles()
        page += objectTable(
            "Objects with unknown owners", summary.unknownOwners, extra: ("unexplained", { "\($0.unexplained ?? 0)" }))
        page += objectTable("Finished but still alive", summary.finishedButHeld, extra: ("state", { $0.state ?? "" }))
        page += objectTable(
            "Can never finish", summary.canNeverFinish,
            extra: ("why", { _ in "active, but nothing outside can send it an event; it ends only when disposed" }))
        page += objectTable(
            "Never finished", summary.neverFinished,
            extra: ("why", { _ in "still active; something outside can still send it events" }))
        page += tallyTable("Top types", summary.topTypes, heading: "type")
        page += tallyTable("Top allocation sites", summary.topSites, heading: "site")
        page += "<footer>Made by leakgraph html. Stacks open on click; wide graphs open fitted to the column "
        page += "as far as their text stays readable, pan by dragging and zoom with the buttons or Ctrl/⌘ + wheel."
        page += "</footer>\n"
        page += "<script>\(Self.panZoomScript)</script>\n</body>\n</html>\n"
        return page
    }

    /// One sentence per leak, first thing on the page.
    private func verdicts() -> String {
        let leaks = summary.leakedCycles.compactMap { group in
            group.verdict.map { (group, $0) }
        }
        guard !leaks.isEmpty else { return "" }
        var out = "<ol class=\"verdicts\">\n"
        for (index, (group, verdict)) in leaks.prefix(rows).enumerated() {
            out += "<li><a href=\"#leak-\(index + 1)\">\(code(verdict))</a>"
            if group.count > 1 { out += " <span class=\"count\">(×\(group.count))</span>" }
            if let made = CycleSites.line(group.sites, limit: rows) {
                out += "<br><span class=\"sites\">\(esc(made))</span>"
            }
            if let culprit = group.culprit { out += "<br><span class=\"culprit\">\(esc(culprit))</span>" }
            out += "</li>\n"
        }
        out += "</ol>\n"
        return out + more(leaks.count)
    }

    private func esc(_ text: String) -> String { HTMLEscaping.escape(text) }

    /// Library leaks (and accepted ones), apart from the user's: one row per kind.
    private func libraryLeaks() -> String {
        guard !summary.libraryLeaks.isEmpty else { return "" }
        var out = "<h2>Library leaks (in code you cannot change, or accepted with --ignore or --baseline)</h2>\n"
        out += "<table class=\"library\">\n<tr><th>count</th><th>loop</th><th>why</th></tr>\n"
        for group in summary.libraryLeaks.prefix(rows) {
            out +=
                "<tr><td>\(group.count)</td><td><code>\(esc(group.loop))</code></td><td>\(code(group.reason))</td></tr>\n"
        }
        return out + "</table>\n" + more(summary.libraryLeaks.count)
    }

    /// Escaped, with `` `code` `` spans shown as code.
    private func code(_ text: String) -> String { HTMLEscaping.escapeWithInlineCode(text) }

    private func summaryTable() -> String {
        let cycles = summary.leakedCycles.reduce(0) { $0 + $1.count }
        let verdict =
            summary.hasLeaks
            ? "<p class=\"verdict leaked\">Leaks found</p>"
            : summary.notChecked != nil
                ? "<p class=\"verdict unchecked\">Nothing was checked: \(HTMLEscaping.escape(summary.notChecked!))</p>"
                : !summary.possibleLeaks.isEmpty
                    ? "<p class=\"verdict unchecked\">No certain leak, but \(summary.possibleLeaks.count) possible leak(s): "
                        + "held only by references LeakGraph could not read</p>"
                    : "<p class=\"verdict clean\">No leaks</p>"
        var rows: [(String, String)] = [
            ("Objects", "\(summary.objectCount)"), ("Edges", "\(summary.edgeCount)"),
            ("Leaked objects", "\(summary.leakedObjectCount)"),
            ("Leaked cycles", "\(cycles) (\(summary.leakedCycles.count) signature(s))"),
            (
                "Library leaks (not in your code; never a failure)",
                summary.libraryLeakCounts.isEmpty
                    ? "0" : summary.libraryLeakCounts.map { "\($0.count) in \($0.library)" }.joined(separator: ", ")
            ),
            ("Retained cycles", "\(summary.retainedCycles.count)"),
            ("Possible leaks (held only by references LeakGraph could not read)", "\(summary.possibleLeaks.count)"),
            ("Objects with unknown owners", "\(summary.unknownOwners.count)"),
            ("Finished but still alive", "\(summary.finishedButHeld.count)"),
            ("Can never finish", "\(summary.canNeverFinish.count)"),
            ("Never finished", "\(summary.neverFinished.count)"),
        ]
        if let pid = summary.pid { rows.insert(("Process", "\(pid)"), at: 0) }
        var out = "<h2>Summary</h2>\n\(verdict)\n<table class=\"summary\">\n"
        for (name, value) in rows { out += "<tr><th>\(esc(name))</th><td>\(esc(value))</td></tr>\n" }
        return out + "</table>\n"
    }

    private func leakedCycles() -> String {
        guard !summary.leakedCycles.isEmpty else { return "" }
        var out = "<h2>Leaked cycles</h2>\n"
        let pictures = CyclePictures(loaded: loaded, groups: Array(summary.leakedCycles.prefix(drawnGroups)))
        for (index, group) in summary.leakedCycles.enumerated() {
            out += "<section class=\"cycle\" id=\"leak-\(index + 1)\">\n<h3>\(group.count) × \(esc(group.loop))</h3>\n"
            if let verdict = group.verdict { out += "<p class=\"verdict-line\">\(code(verdict))</p>\n" }
            if let made = CycleSites.line(group.sites, limit: rows) { out += "<p class=\"sites\">\(esc(made))</p>\n" }
            if let culprit = group.culprit { out += "<p class=\"culprit\">\(esc(culprit))</p>\n" }
            if group.signature != group.loop {
                out += "<p class=\"signature\">signature: \(esc(group.signature))</p>\n"
            }
            if index < drawnGroups, let dot = pictures.dot(forGroup: index) {
                out += figure(dot: dot, number: index + 1, caption: group.hint.map { "✂ " + $0.line })
            } else if let hint = group.hint {
                out += "<p class=\"hint\">\(code(hint.line))</p>\n"
            }
            out += "<ul class=\"members\">\n"
            for member in group.members {
                out += "<li><details><summary><code>\(esc(member.displayName))</code> allocated at "
                out += "<code>\(esc(member.site ?? "(no allocation stack)"))</code></summary>\n"
                if let stack = member.stack, !stack.isEmpty {
                    out += "<ol class=\"stack\">" + stack.map { "<li><code>\(esc($0))</code></li>" }.joined() + "</ol>"
                } else {
                    out += "<p>No allocation stack recorded.</p>"
                }
                out += "</details></li>\n"
            }
            out += "</ul>\n"
            if group.count > 1 { out += "<p>\(group.count - 1) more cycle(s) with this signature.</p>\n" }
            out += "</section>\n"
        }
        return out
    }

    /// A graph in a pan-and-zoom viewport (opened fitted while its text stays readable), with the
    /// fix as its caption.
    private func figure(dot: String, number: Int, caption: String?) -> String {
        let captionHTML = caption.map { "<figcaption class=\"hint\">\(code($0))</figcaption>" } ?? ""
        do {
            let svg = Self.uniqueIDs(try renderer.svg(fromDot: dot, source: loaded.path), prefix: "g\(number)-")
            return "<figure class=\"graph\">\(captionHTML)<div class=\"tools\">"
                + "<button type=\"button\" data-zoom=\"in\" title=\"zoom in (+)\">+</button>"
                + "<button type=\"button\" data-zoom=\"out\" title=\"zoom out (-)\">−</button>"
                + "<button type=\"button\" data-zoom=\"reset\" title=\"100 % (0)\">100 %</button>"
                + "<button type=\"button\" data-zoom=\"fit\" title=\"fit the whole graph\">fit</button></div>"
                + "<div class=\"viewport\" tabindex=\"0\"><div class=\"canvas\">\(svg)</div></div></figure>\n"
        } catch {
            let note =
                renderer.isAvailable
                ? "Graphviz could not draw this cycle (\(error.problem))." : GraphRenderer.installHint + "."
            return "<figure class=\"graph\">\(captionHTML)<p class=\"note\">\(esc(note)) The graph in dot form:</p>"
                + "<pre class=\"dot\">\(esc(dot))</pre></figure>\n"
        }
    }

    /// Graphviz names every SVG's groups `graph0`, `node1`, …: prefixed, several graphs can share
    /// one page without duplicate ids.
    static func uniqueIDs(_ svg: String, prefix: String) -> String {
        svg.replacingOccurrences(of: " id=\"", with: " id=\"\(prefix)")
            .replacingOccurrences(of: "href=\"#", with: "href=\"#\(prefix)")
    }

    /// Retained cycles only unread memory may hold: shown whenever there are any.
    private func possibleLeaks() -> String {
        guard !summary.possibleLeaks.isEmpty else { return "" }
        var out = "<h2>Possible leaks</h2>\n<p>Cycles and objects held only by references the graph does not "
        out += "show, that reach memory LeakGraph could not read: if those are their holders, they are leaked.</p>\n"
        out += "<table>\n<tr><th>loop</th><th>where LeakGraph could not read</th></tr>\n"
        for leak in summary.possibleLeaks.prefix(rows) {
            out += "<tr><td><code>\(esc(leak.loop))</code><br>\(esc(leak.verdict))</td>"
            out += "<td>\(leak.unread.map(esc).joined(separator: "<br>"))</td></tr>\n"
        }
        out += "</table>\n"
        return out + more(summary.possibleLeaks.count)
    }

    private func retainedCycles() -> String {
        var out = "<h2>Retained cycles</h2>\n"
        guard !summary.retainedCycles.isEmpty else { return out + "<p>None.</p>\n" }
        out +=
            "<table>\n<tr><th>loop</th><th>held from outside</th><th>fix, once the outside holders let go</th></tr>\n"
        for cycle in summary.retainedCycles.prefix(rows) {
            let holders = cycle.holders.map { holder in
                var text = holder.object.displayName
                if holder.unexplained > 0 { text += " (\(holder.unexplained) unexplained)" }
                if !holder.knownHolders.isEmpty {
                    text += " by " + holder.knownHolders.map(\.displayName).joined(separator: ", ")
                }
                return esc(text)
            }
            out += "<tr><td><code>\(esc(cycle.loop))</code></td><td>\(holders.joined(separator: "<br>"))</td>"
            out += "<td>\(esc(cycle.hint?.line ?? cycle.library.map { $0 + " (a library's cycle)" } ?? ""))</td></tr>\n"
        }
        out += "</table>\n"
        return out + more(summary.retainedCycles.count)
    }

    private func objectTable(
        _ title: String, _ objects: [LeakSummary.ObjectEntry], extra: (String, (LeakSummary.ObjectEntry) -> String)
    ) -> String {
        var out = "<h2>\(esc(title))</h2>\n"
        guard !objects.isEmpty else { return out + "<p>None.</p>\n" }
        out += "<table>\n<tr><th>object</th><th>\(esc(extra.0))</th><th>allocated at</th></tr>\n"
        for object in objects.prefix(rows) {
            out += "<tr><td><code>\(esc(object.displayName))</code></td><td>\(esc(extra.1(object)))</td>"
            out += "<td><code>\(esc(object.site ?? ""))</code></td></tr>\n"
        }
        return out + "</table>\n" + more(objects.count)
    }

    private func tallyTable(_ title: String, _ tallies: [LeakSummary.Tally], heading: String) -> String {
        var out =
            "<h2>\(esc(title))</h2>\n<table>\n<tr><th class=\"n\">count</th><th class=\"n\">leaked</th><th>\(heading)</th></tr>\n"
        for tally in tallies {
            out +=
                "<tr><td class=\"n\">\(tally.count)</td><td class=\"n\">\(tally.leaked)</td><td><code>\(esc(tally.name))</code></td></tr>\n"
        }
        return out + "</table>\n"
    }

    private func more(_ count: Int) -> String {
        count > rows
            ? "<p>… and \(count - rows) more (raise --top, or use <code>leakgraph report --format json</code>).</p>\n"
            : ""
    }

    static let style = """
        body{font:15px/1.45 -apple-system,system-ui,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;\
        padding:0 1em;color:#222}h1{margin-bottom:0}.file{color:#666;margin-top:.2em}\
        table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ddd;padding:.25em .6em;\
        text-align:left;vertical-align:top}th{background:#f5f5f5}.n{text-align:right}\
        .verdict{font-weight:bold;font-size:1.2em}.leaked{color:#d62728}.clean{color:#2ca02c}.unchecked{color:#b8860b}\
        ol.verdicts{background:#fff5f5;border:1px solid #f3c2c2;border-radius:6px;padding:.6em 1em .6em 2.4em}\
        ol.verdicts li{margin:.3em 0}ol.verdicts a{color:#8b1a1a;text-decoration:none}.count{color:#666}\
        .verdict-line{font-weight:600}.culprit{color:#7a2e00}\
        section.cycle{border-left:4px solid #d62728;padding:.2em 1em;margin:1em 0;background:#fffafa}\
        figure.graph{margin:.5em 0}figcaption.hint{margin-bottom:.4em}\
        .tools{margin:.2em 0}.tools button{font:13px system-ui,sans-serif;margin-right:.3em;padding:.15em .6em;\
        border:1px solid #bbb;border-radius:4px;background:#fff;cursor:pointer}\
        .viewport{overflow:hidden;max-height:75vh;border:1px solid #e3e3e3;border-radius:4px;background:#fff;\
        cursor:grab;touch-action:none;position:relative}.viewport:focus{outline:2px solid #1f5fbf}\
        .viewport.dragging{cursor:grabbing}.canvas{transform-origin:0 0;width:max-content}\
        .canvas svg{display:block}\
        .hint{background:#fff3cd;padding:.4em .6em;border-radius:4px}.note{color:#8a6d3b}\
        pre.dot{background:#f7f7f7;padding:.6em;overflow:auto;font-size:12px}ol.stack{font-size:12px;color:#444}\
        code{font-family:SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}footer{color:#888;margin-top:2em}
        """

    /// Pan (drag, arrow keys) and zoom (buttons, Ctrl/⌘ + wheel, + - 0) for every graph viewport.
    /// A graph opens fitted to the viewport's width, but never scaled below the size at which its
    /// smallest text is 10 px (`floor`): a wide graph shows whole where it stays readable, and
    /// pans from its left edge where it does not. The viewport's height follows the graph at the
    /// opening scale up to 75 % of the window.
    static let panZoomScript = """
        document.querySelectorAll('figure.graph').forEach(function(figure){\
        var view=figure.querySelector('.viewport'),canvas=figure.querySelector('.canvas');if(!view||!canvas)return;\
        var svg=canvas.querySelector('svg');var s=1,x=0,y=0,small=1e9;\
        svg.querySelectorAll('text').forEach(function(t){var m=t.getScreenCTM();if(!m)return;\
        var f=parseFloat(t.getAttribute('font-size')||getComputedStyle(t).fontSize)*Math.hypot(m.a,m.b);\
        if(f>0)small=Math.min(small,f);});var floor=small<1e9?Math.min(1,10.05/small):1;\
        var natural=svg.getBoundingClientRect();\
        s=Math.max(floor,Math.min(1,view.clientWidth/natural.width));\
        function apply(){canvas.style.transform='translate('+x+'px,'+y+'px) scale('+s+')';}\
        function zoom(f,cx,cy){var n=Math.min(8,Math.max(0.1,s*f));if(cx===undefined){cx=view.clientWidth/2;\
        cy=view.clientHeight/2;}x=cx-(cx-x)*n/s;y=cy-(cy-y)*n/s;s=n;apply();}\
        function fit(){var w=svg.getBoundingClientRect().width/s,h=svg.getBoundingClientRect().height/s;\
        s=Math.min(1,view.clientWidth/w,view.clientHeight/h);x=0;y=0;apply();}\
        view.style.height=Math.min(natural.height*s+2,window.innerHeight*0.75)+'px';apply();\
        figure.querySelectorAll('button').forEach(function(b){b.addEventListener('click',function(){\
        var z=b.getAttribute('data-zoom');if(z==='in')zoom(1.25);else if(z==='out')zoom(0.8);\
        else if(z==='fit')fit();else{s=1;x=0;y=0;apply();}});});\
        view.addEventListener('wheel',function(e){if(!e.ctrlKey&&!e.metaKey)return;e.preventDefault();\
        var r=view.getBoundingClientRect();zoom(e.deltaY<0?1.1:0.9,e.clientX-r.left,e.clientY-r.top);},{passive:false});\
        var drag=null;view.addEventListener('pointerdown',function(e){drag={px:e.clientX,py:e.clientY,x:x,y:y};\
        view.setPointerCapture(e.pointerId);view.classList.add('dragging');});\
        view.addEventListener('pointermove',function(e){if(!drag)return;x=drag.x+e.clientX-drag.px;\
        y=drag.y+e.clientY-drag.py;apply();});\
        function stop(){drag=null;view.classList.remove('dragging');}\
        view.addEventListener('pointerup',stop);view.addEventListener('pointercancel',stop);\
        view.addEventListener('keydown',function(e){var k=e.key,step=40;if(k==='+'||k==='=')zoom(1.25);\
        else if(k==='-')zoom(0.8);else if(k==='0'){s=1;x=0;y=0;apply();}else if(k==='ArrowLeft')x+=step;\
        else if(k==='ArrowRight')x-=step;else if(k==='ArrowUp')y+=step;else if(k==='ArrowDown')y-=step;else return;\
        e.preventDefault();apply();});});
        """
}

/// Small dot graphs of single leaked cycles: their members and the edges among them.
struct CyclePictures {
    private var dots: [String?]

    init(loaded: LoadedDump, groups: [LeakSummary.CycleGroup], maximumNodes: Int = 60) {
        let dump = loaded.dump
        // The first cycle of each group (its members, capped).
        let memberLists = groups.map { Array(($0.cycles.first ?? []).prefix(maximumNodes)) }
        var groupsOf: [UInt64: [Int]] = [:]
        for (index, members) in memberLists.enumerated() {
            for id in members { groupsOf[id, default: []].append(index) }
        }
        var edges = [[EdgeInfo]](repeating: [], count: groups.count)
        for edge in dump.snapshot.edges {
            guard let from = groupsOf[edge.from], let to = groupsOf[edge.to] else { continue }
            for index in from where to.contains(index) { edges[index].append(edge) }
        }
        let cycles = Dictionary(
            dump.cycles.filter(\.leaked).map { ($0.objects, $0) }, uniquingKeysWith: { first, _ in first })
        dots = groups.enumerated().map { index, group in
            guard let members = group.cycles.first, let cycle = cycles[members] else { return nil }
            var picture = dump
            let objects = memberLists[index].compactMap { dump.snapshot.object($0) }
            let stackIDs = Set(objects.compactMap(\.stack))
            picture.snapshot = GraphSnapshot(
                objects: objects, edges: edges[index], stacks: dump.snapshot.stacks.filter { stackIDs.contains($0.id) },
                time: dump.snapshot.time)
            picture.cycles = [cycle]
            picture.leakedObjectIDs = Set(objects.map(\.id))
            return DotExporter.render(
                picture,
                options: DotExporter.Options(
                    scope: .everything, maximumNodes: maximumNodes, title: "Leaked cycle \(index + 1)"))
        }
    }

    /// The dot text for group `index`, when its cycle could be found.
    func dot(forGroup index: Int) -> String? {
        index < dots.count ? dots[index] : nil
    }
}
