/// Writes a snapshot as a Graphviz `dot` graph laid out to be read at 100 %.
///
/// Leaked cycles are red, objects kept alive only by a leak pink with a dashed border, retained
/// cycles orange, other objects grey; strong edges are solid, weak dashed, unowned dotted, unknown
/// grey and dashed, unmanaged (owning by count) bold and dashed; tasks are hexagons; every strong edge inside a cycle is drawn bold in the cycle's colour, and the
/// edge to cut (``LeakTrace/fix(for:in:)``) blue and marked ✂. Graphs go top to bottom, one
/// connected group under the other, so a long loop grows down the page instead of across it.
/// Long type names and sites are shortened in the middle (`AnonymousObservableSink<…rver<Int>>>`);
/// the full text is in each node's tooltip. A legend explains the colours and line styles.
///
/// By default only cycles plus one hop of context are drawn (`dot` lays out about 1,000 nodes in
/// seconds, and 10,000 not in 15 minutes); ``Options/maximumNodes`` bounds it either way.
///
/// ```swift
/// let dot = DotExporter.render(LeakGraph.snapshot())
/// try dot.write(toFile: "leaks.dot", atomically: true, encoding: .utf8)   // then: dot -Tsvg leaks.dot
/// ```
public enum DotExporter {
    /// What to draw.
    public struct Options: Sendable, Hashable {
        /// Which objects to include.
        public enum Scope: Sendable, Hashable {
            /// Members of cycles plus the objects one edge away from them.
            case cyclesWithContext
            /// Only members of leaked cycles and what they alone keep alive.
            case leakedOnly
            /// Every object.
            case everything
        }

        /// Which objects to include.
        public var scope: Scope
        /// The most nodes drawn; the rest are summarised in the title.
        public var maximumNodes: Int
        /// Graph title.
        public var title: String?
        /// Whether a legend of colours and line styles is drawn under the graph.
        public var showsLegend: Bool
        /// The longest type name or site shown in a node before it is shortened in the middle.
        public var maximumLabelLength: Int
        /// Objects drawn with a thick double border and a `★ new` line (`leakgraph diff`: the
        /// members of leaks the other dump did not have).
        public var highlighted: Set<UInt64>
        /// With ``Scope/cyclesWithContext``, the most cycles drawn of one signature (the same loop
        /// through the same types and fields); the others are counted in the caption. 200,000
        /// copies of one leak draw as a few, and `dot` lays them out in milliseconds instead of
        /// 500 nodes' worth of copies in a second. 0 draws every cycle up to ``maximumNodes``.
        public var examplesPerSignature: Int

        /// Creates options.
        public init(
            scope: Scope = .cyclesWithContext, maximumNodes: Int = 500, title: String? = nil, showsLegend: Bool = true,
            maximumLabelLength: Int = 44, highlighted: Set<UInt64> = [], examplesPerSignature: Int = 3
        ) {
            self.scope = scope
            self.maximumNodes = maximumNodes
            self.title = title
            self.showsLegend = showsLegend
            self.maximumLabelLength = max(8, maximumLabelLength)
            self.highlighted = highlighted
            self.examplesPerSignature = max(0, examplesPerSignature)
        }
    }

    /// Fill and line colours, shared with the legend so that both always agree.
    enum Palette {
        static let leaked = (fill: "#ffd6d6", line: "#d62728")
        static let keptAlive = (fill: "#fff0f0", line: "#d62728")
        static let retained = (fill: "#ffe8c7", line: "#ff7f0e")
        static let other = (fill: "#eeeeee", line: "#888888")
        static let cut = "#1f5fbf"
        static let new = "#7b2cbf"
    }

    /// Renders `snapshot` as dot text.
    public static func render(_ snapshot: GraphSnapshot, report: LeakReport? = nil, options: Options = Options())
        -> String
    {
        let snapshot = Symbolicator.symbolicatedIfNeeded(snapshot)
        let report = report ?? LeakDetector.analyze(snapshot, disposalLabels: LeakAdvice.disposalLabels)
        return render(
            objects: snapshot.objects, edges: snapshot.edges, stacks: snapshot.stacks, cycles: report.cycles,
            leaked: report.leakedObjectIDs, options: options)
    }

    package static func render(
        objects: [ObjectInfo], edges: [EdgeInfo], stacks: [StackInfo], cycles: [Cycle], leaked: Set<UInt64>,
        options: Options
    ) -> String {
        // The picture holds a few hundred objects of what may be a million: every pass over
        // the whole graph is a table lookup per object or edge, and only the drawn objects are
        // hashed (a dictionary of every cycle member and one of every object were most of a
        // big dump's picture).
        let chosen = choose(objects: objects, edges: edges, cycles: cycles, leaked: leaked, options: options)
        let chosenSet = Set(chosen.ids)
        // Which cycle (by index) each drawn member belongs to: cycles are disjoint components.
        var cycleOf: [UInt64: Int] = [:]
        for index in cycles.indices {
            for id in cycles[index].objects where chosenSet.contains(id) { cycleOf[id] = index }
            if cycleOf.count == chosenSet.count { break }
        }
        let objectIndex = NodeIndex(objects)
        let isDrawn = objectIndex.flags(of: chosen.ids)
        func drawn(_ id: UInt64) -> Bool {
            let node = objectIndex.node(of: id)
            return node >= 0 && isDrawn[node]
        }
        var stackByID: [Int: StackInfo] = [:]
        for stack in stacks { stackByID[stack.id] = stack }
        let drawnObjects = chosen.ids.compactMap { id in
            let node = objectIndex.node(of: id)
            return node >= 0 ? objects[node] : nil
        }
        let drawnEdges = edges.filter { drawn($0.from) && drawn($0.to) }
        let cuts = edgesToCut(
            cycles: cycles, drawn: chosenSet,
            picture: GraphSnapshot(objects: drawnObjects.sorted { $0.id < $1.id }, edges: drawnEdges, stacks: stacks))

        // Counted, not filtered: a filter copies every leaked cycle (40 MB for half a million).
        let leakedCycleCount = cycles.reduce(0) { $0 + ($1.leaked ? 1 : 0) }
        var title = options.title ?? "LeakGraph"
        title += " — \(leakedCycleCount) leaked, \(cycles.count - leakedCycleCount) retained cycle(s)"
        if chosen.omitted > 0 { title += "; \(chosen.omitted) more object(s) not drawn" }
        var caption = [title]
        // The signatures drawn as examples, most copies first.
        let repeated = chosen.repeated.sorted { ($0.count, $1.signature) > ($1.count, $0.signature) }
        for group in repeated.prefix(Self.repeatedSignaturesCaptioned) {
            caption.append(
                "\(group.count) \(group.leaked ? "leaked" : "retained") cycles like \(group.signature) "
                    + "(\(group.drawn) drawn)")
        }
        if repeated.count > Self.repeatedSignaturesCaptioned {
            caption.append(
                "… and \(repeated.count - Self.repeatedSignaturesCaptioned) more signatures drawn as examples")
        }
        if !cuts.isEmpty && cuts.count <= 3 {
            caption += cuts.values.sorted { $0.edge < $1.edge }.map { "✂ cut " + $0.edge }
        } else if cuts.count > 3 {
            caption.append("✂ blue edges: the reference to cut in each leaked cycle")
        }

        var out = "digraph leakgraph {\n"
        out += "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=14, labelloc=t, labeljust=l, "
        out += "nodesep=0.35, ranksep=0.45, pad=0.2, "
        out += "label=\(quote(caption.map { shorten($0, to: 160) }.joined(separator: "\n")))];\n"
        out +=
            "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=12, margin=\"0.12,0.06\"];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=11];\n"
        for object in drawnObjects {
            out +=
                "  "
                + node(
                    object, stackByID: stackByID, cycles: cycles, cycleOf: cycleOf,
                    leaked: leaked, options: options) + "\n"
        }
        for edge in drawnEdges {
            var attributes: [String] = []
            var label = edge.label
            if edge.count > 1 { label += " ×\(edge.count)" }
            switch edge.kind {
            case .strong: break
            case .weak: attributes.append("style=dashed")
            case .unowned: attributes.append("style=dotted")
            case .unknown: attributes += ["style=dashed", "color=\"#999999\"", "fontcolor=\"#777777\""]
            case .unmanaged: attributes.append("style=\"bold,dashed\"")
            }
            let key = EdgeKey(from: edge.from, to: edge.to, label: edge.label)
            if cuts[key] != nil {
                label = "✂ " + label
                attributes += [
                    "color=\"\(Palette.cut)\"", "fontcolor=\"\(Palette.cut)\"", "penwidth=3",
                    "tooltip=\(quote("cut this reference: " + (cuts[key]?.advice ?? "")))",
                ]
            } else if edge.kind.keepsAlive, let cycle = cycleOf[edge.from], cycleOf[edge.to] == cycle {
                // Every strong edge inside the cycle, not only the canonical loop's: two loops of
                // one leak are one problem.
                attributes += [
                    "color=\"\(cycles[cycle].leaked ? Palette.leaked.line : Palette.retained.line)\"", "penwidth=2",
                ]
            }
            attributes.insert("label=\(quote(shorten(label, to: options.maximumLabelLength)))", at: 0)
            if cuts[key] == nil, let closure = edge.closure { attributes.append("tooltip=\(quote(closure))") }
            out += "  n\(edge.from) -> n\(edge.to) [\(attributes.joined(separator: ", "))];\n"
        }
        out += stackComponents(
            drawnObjects.map(\.id), edges: drawnEdges, legend: options.showsLegend,
            highlights: drawnObjects.contains { options.highlighted.contains($0.id) })
        out += "}\n"
        return out
    }

    /// Invisible dividers that put each connected group of nodes under the previous one (and the
    /// legend under all), so that the picture grows down the page rather than across it.
    /// (Graphviz's `pack` would do it, but it drops edge labels.)
    private static func stackComponents(_ ids: [UInt64], edges: [EdgeInfo], legend: Bool, highlights: Bool)
        -> String
    {
        guard !ids.isEmpty else { return "" }
        var parent = [UInt64: UInt64]()
        for id in ids { parent[id] = id }
        func root(_ id: UInt64) -> UInt64 {
            var id = id
            while let up = parent[id], up != id {
                parent[id] = parent[up]
                id = up
            }
            return id
        }
        for edge in edges {
            let (a, b) = (root(edge.from), root(edge.to))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var groups: [[UInt64]] = []
        var groupOf: [UInt64: Int] = [:]
        for id in ids {
            let top = root(id)
            if let group = groupOf[top] {
                groups[group].append(id)
            } else {
                groupOf[top] = groups.count
                groups.append([id])
            }
        }
        var out = ""
        if legend { groups.append([UInt64.max]) }
        guard groups.count > 1 else { return legendNode(legend, highlights: highlights) }
        out += legendNode(legend, highlights: highlights)
        out += "  node [shape=point, style=invis, width=0, height=0, label=\"\"];\n"
        func name(_ id: UInt64) -> String { id == .max ? "legend" : "n\(id)" }
        for index in 1..<groups.count {
            let divider = "divider\(index)"
            out += "  \(divider);\n"
            for id in groups[index - 1] { out += "  \(name(id)) -> \(divider) [style=invis, weight=0];\n" }
            for id in groups[index] { out += "  \(divider) -> \(name(id)) [style=invis, weight=0];\n" }
        }
        return out
    }

    private static func legendNode(_ shown: Bool, highlights: Bool = false) -> String {
        guard shown else { return "" }
        let table = highlights ? legendWithNew : legend
        return "  legend [shape=plaintext, style=\"\", margin=0, fontsize=10, label=<\(table)>];\n"
    }

    private struct EdgeKey: Hashable {
        var from: UInt64
        var to: UInt64
        var label: String
    }

    /// How many repeated signatures the caption lists one by one.
    static let repeatedSignaturesCaptioned = 5

    /// A cycle signature with more copies than were drawn (``Options/examplesPerSignature``).
    struct RepeatedSignature {
        var signature: String
        var leaked: Bool
        var count: Int
        var drawn: Int
    }

    /// The objects to draw, in drawing order, how many were left out, and the signatures drawn
    /// as examples.
    private static func choose(
        objects: [ObjectInfo], edges: [EdgeInfo], cycles: [Cycle], leaked: Set<UInt64>, options: Options
    ) -> (ids: [UInt64], omitted: Int, repeated: [RepeatedSignature]) {
        var repeated: [String: RepeatedSignature] = [:]
        var membersChosen = 0
        var chosen: [UInt64] = []
        var chosenSet = Set<UInt64>()
        // One past the cap is enough to know that some were left out.
        let enough = options.maximumNodes + 1
        func choose(_ id: UInt64) {
            if chosen.count < enough && chosenSet.insert(id).inserted { chosen.append(id) }
        }
        switch options.scope {
        case .everything:
            objects.forEach { choose($0.id) }
        // Each loop stops once the picture is full: a million cycle members or edges need not
        // be looked at to draw a few hundred.
        case .leakedOnly:
            for index in cycles.indices where cycles[index].leaked {
                guard chosen.count < enough else { break }
                cycles[index].objects.forEach(choose)
            }
            if chosen.count < enough { leaked.sorted().forEach(choose) }
        case .cyclesWithContext:
            // Every cycle is looked at (to count the copies of each signature), each drawn while
            // the picture has room and its signature has fewer than the examples asked.
            // One entry per signature: how many there are, how many were drawn.
            // The group of a run of one signature is kept aside and stored when the run ends:
            // hashing a signature normalises its Unicode (the arrows), ~2,400 instructions, which
            // two lookups per cycle paid for each of half a million cycles.
            for leakedFirst in [true, false] {
                var group: RepeatedSignature?
                for index in cycles.indices where cycles[index].leaked == leakedFirst {
                    let signature = cycles[index].signature
                    if group?.signature != signature {
                        if let group { repeated[group.signature] = group }
                        group =
                            repeated[signature]
                            ?? RepeatedSignature(signature: signature, leaked: leakedFirst, count: 0, drawn: 0)
                    }
                    guard var current = group else { continue }
                    let isExample = options.examplesPerSignature == 0 || current.drawn < options.examplesPerSignature
                    if isExample && chosen.count < enough {
                        cycles[index].objects.forEach(choose)
                        current.drawn += 1
                    } else if options.examplesPerSignature == 0 {
                        // Stored as it was: a signature first met here is not counted at all.
                        group = current.count > 0 ? current : nil
                        break
                    }
                    current.count += 1
                    group = current
                }
                if let group { repeated[group.signature] = group }
            }
            let core = chosenSet
            membersChosen = core.count
            for edge in edges {
                guard chosen.count < enough else { break }
                if core.contains(edge.from) || core.contains(edge.to) {
                    choose(edge.from)
                    choose(edge.to)
                }
            }
        }
        let candidates: Int
        switch options.scope {
        case .everything: candidates = objects.count
        case .leakedOnly: candidates = max(chosen.count, leaked.count)
        case .cyclesWithContext: candidates = cycles.reduce(0) { $0 + $1.objects.count }
        }
        // Exact for `.everything`; for the other scopes, the cycle members left out (context
        // objects beyond the cap are not counted).
        let omitted =
            options.scope == .cyclesWithContext
            ? max(0, candidates - min(membersChosen, options.maximumNodes))
            : max(0, candidates - options.maximumNodes)
        if chosen.count > options.maximumNodes { chosen.removeLast(chosen.count - options.maximumNodes) }
        let examples =
            options.examplesPerSignature == 0 ? [] : repeated.values.filter { $0.drawn > 0 && $0.count > $0.drawn }
        return (chosen, omitted, examples)
    }

    /// The edge to cut in each leaked cycle that is drawn whole (at most 100 cycles: beyond that
    /// the picture is an overview, not a to-do list).
    private static func edgesToCut(cycles: [Cycle], drawn: Set<UInt64>, picture: GraphSnapshot) -> [EdgeKey: LeakTrace
        .Fix]
    {
        var cuts: [EdgeKey: LeakTrace.Fix] = [:]
        for cycle in cycles.lazy.filter(\.leaked).prefix(100) where cycle.objects.allSatisfy(drawn.contains) {
            // A dependency's own cycle has no edge to cut (its fix ends what the user's code made).
            if let fix = LeakTrace.fix(for: cycle, in: picture), fix.remedy == .cut {
                cuts[EdgeKey(from: fix.step.from, to: fix.step.to, label: fix.step.label)] = fix
            }
        }
        return cuts
    }

    private static func node(
        _ object: ObjectInfo, stackByID: [Int: StackInfo], cycles: [Cycle], cycleOf: [UInt64: Int],
        leaked: Set<UInt64>, options: Options
    ) -> String {
        let limit = options.maximumLabelLength
        var lines = [shorten(object.type, to: limit)]
        var tooltip = [object.type]
        if let label = object.label {
            lines.append("\"\(shorten(label, to: limit - 2))\"")
            tooltip.append("label: \(label)")
        }
        let isNew = options.highlighted.contains(object.id)
        if isNew {
            lines.insert("★ new", at: 0)
            tooltip.append("new: not in the other dump's leaks")
        }
        var idLine = "#\(object.id)"
        if let count = object.strongRetainCount { idLine += "  rc=\(count)" }
        if object.state != .unspecified { idLine += "  \(object.state.rawValue)" }
        lines.append(idLine)
        if let frame = object.stack.flatMap({ stackByID[$0] })?.userFrameDescription {
            lines.append(siteLine(frame, limit: limit))
            tooltip.append("allocated at \(frame)")
        }
        var attributes = ["label=\(quote(lines.joined(separator: "\n")))"]
        let cycle = cycleOf[object.id].map { cycles[$0] }
        let colors: (fill: String, line: String)
        if cycle?.leaked == true {
            colors = Palette.leaked
            tooltip.append("in a leaked cycle")
        } else if leaked.contains(object.id) {
            colors = Palette.keptAlive
            attributes.append("style=\"rounded,filled,dashed\"")
            tooltip.append("kept alive only by a leaked cycle")
        } else if cycle != nil {
            colors = Palette.retained
            tooltip.append("in a retained cycle (something outside holds it)")
        } else {
            colors = Palette.other
        }
        attributes += [
            "fillcolor=\"\(colors.fill)\"", "color=\"\(isNew ? Palette.new : colors.line)\"",
            "tooltip=\(quote(tooltip.joined(separator: "\n")))",
        ]
        if isNew { attributes += ["penwidth=3", "peripheries=2"] }
        // A task is no object: drawn as a shape of its own.
        if object.type == TaskNode.typeName { attributes.append("shape=hexagon") }
        return "n\(object.id) [\(attributes.joined(separator: ", "))];"
    }

    /// `Scenarios.swift:43 · closure #1 in vari…Scenarios.all`: the file and line first, since
    /// they are what a reader looks for, then as much of the function as fits.
    static func siteLine(_ frame: String, limit: Int) -> String {
        let parts = frame.split(separator: " at ", omittingEmptySubsequences: false)
        guard parts.count >= 2, let path = parts.last else { return shorten(frame, to: limit) }
        let location = String(path.split(separator: "/").last ?? path)
        let function = parts.dropLast().joined(separator: " at ")
        let room = limit - location.count - 3
        return room >= 12 ? location + " · " + shorten(function, to: room) : shorten(location, to: limit)
    }

    /// An HTML-like table explaining the colours and line styles.
    ///
    /// Two entries per row with a wide gap between them, and line samples drawn as cell borders
    /// rather than with box-drawing characters: Graphviz sizes each cell with its own font
    /// metrics, and a renderer that draws the text in another font (librsvg, a browser) made
    /// the entries of a packed row run into each other.
    private static let legend: String = {
        legendTable(extraRows: [])
    }()

    /// ``legend`` with a row for highlighted (new) objects.
    private static let legendWithNew: String = {
        legendTable(extraRows: [
            "<td><font color=\"\(Palette.new)\">▣ ★</font></td><td align=\"left\">new since the other dump</td>"
        ])
    }()

    private static func legendTable(extraRows: [String]) -> String {
        func swatch(_ colors: (fill: String, line: String), _ text: String, dashed: Bool = false) -> String {
            "<td bgcolor=\"\(colors.fill)\" color=\"\(colors.line)\" border=\"1\"\(dashed ? " style=\"dashed\"" : "")"
                + " width=\"24\" height=\"12\" fixedsize=\"true\"></td><td align=\"left\">\(text)</td>"
        }
        func line(_ color: String, _ text: String, style: String? = nil, width: Int = 2) -> String {
            "<td sides=\"B\" border=\"\(width)\" color=\"\(color)\"\(style.map { " style=\"\($0)\"" } ?? "")"
                + " width=\"24\" height=\"8\" fixedsize=\"true\"></td><td align=\"left\">\(text)</td>"
        }
        let gap = "<td width=\"36\"></td>"
        let entries =
            [
                swatch(Palette.leaked, "leaked"), swatch(Palette.keptAlive, "kept alive by the leak", dashed: true),
                swatch(Palette.retained, "retained (held from outside)"), swatch(Palette.other, "context"),
                line(Palette.leaked.line, "strong, in a cycle"), line(Palette.cut, "✂ cut this", width: 3),
                line("#000000", "strong", width: 1), line("#000000", "weak", style: "dashed", width: 1),
                line("#000000", "unowned", style: "dotted", width: 1),
                line("#999999", "unknown strength", style: "dashed", width: 1),
            ] + extraRows
        var rows = ""
        for start in stride(from: 0, to: entries.count, by: 2) {
            let second = start + 1 < entries.count ? entries[start + 1] : "<td></td><td></td>"
            rows += "<tr>" + entries[start] + gap + second + "</tr>"
        }
        return "<table border=\"0\" cellborder=\"0\" cellspacing=\"4\" cellpadding=\"1\">" + rows + "</table>"
    }

    /// Shortens `text` in the middle with an ellipsis, keeping its start and its end (the type's
    /// generic arguments, the file and line).
    static func shorten(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit >= 3 else { return text }
        let head = (limit - 1) / 2
        let tail = limit - 1 - head
        return String(text.prefix(head)) + "…" + String(text.suffix(tail))
    }

    /// The longest string Graphviz accepts is 16 KB; names past it are cut (the JSON keeps them).
    static let maximumStringLength = 4_000

    /// A dot string literal: quotes and backslashes escaped, line breaks as `\n`, other control
    /// characters (a NUL ends Graphviz's string) replaced, and at most ``maximumStringLength``.
    static func quote(_ text: String) -> String {
        var out = "\""
        var length = 0
        for character in text {
            length += 1
            if length > maximumStringLength {
                out += "…"
                break
            }
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                    scalar.value < 0x20 || scalar.value == 0x7F
                {
                    out += "\u{FFFD}"
                } else {
                    out.append(character)
                }
            }
        }
        return out + "\""
    }
}
