/// Writes a snapshot as a Graphviz `dot` graph.
///
/// Leaked cycles are red, retained cycles orange, other objects grey; strong edges are solid,
/// weak dashed, unowned dotted, unknown grey and dashed. Each node shows the type, the label, the
/// id and the first user-code frame of its allocation stack. By default only cycles plus one hop
/// of context are drawn, so that the picture stays readable (`dot` lays out about 1,000 nodes in
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

        /// Creates options.
        public init(scope: Scope = .cyclesWithContext, maximumNodes: Int = 500, title: String? = nil) {
            self.scope = scope
            self.maximumNodes = maximumNodes
            self.title = title
        }
    }

    /// Renders `snapshot` as dot text.
    public static func render(_ snapshot: GraphSnapshot, report: LeakReport? = nil, options: Options = Options())
        -> String
    {
        let snapshot =
            snapshot.stacks.contains(where: \.needsSymbolication)
                || snapshot.edges.contains { $0.closureAddress != nil && $0.closure == nil }
            ? Symbolicator.symbolicate(snapshot) : snapshot
        let report = report ?? LeakDetector.analyze(snapshot)
        return render(
            objects: snapshot.objects, edges: snapshot.edges, stacks: snapshot.stacks, cycles: report.cycles,
            leaked: report.leakedObjectIDs, options: options)
    }

    /// Renders a dump read from disk.
    public static func render(_ dump: LeakGraphDump, options: Options = Options()) -> String {
        render(
            objects: dump.snapshot.objects, edges: dump.snapshot.edges, stacks: dump.snapshot.stacks,
            cycles: dump.cycles, leaked: dump.leakedObjectIDs, options: options)
    }

    static func render(
        objects: [ObjectInfo], edges: [EdgeInfo], stacks: [StackInfo], cycles: [Cycle], leaked: Set<UInt64>,
        options: Options
    ) -> String {
        var inLeakedCycle = Set<UInt64>()
        var inRetainedCycle = Set<UInt64>()
        var cycleEdges = Set<String>()
        for cycle in cycles {
            if cycle.leaked { inLeakedCycle.formUnion(cycle.objects) } else { inRetainedCycle.formUnion(cycle.objects) }
            for step in cycle.path { cycleEdges.insert("\(step.from)|\(step.to)|\(step.label)") }
        }
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
        case .leakedOnly:
            for cycle in cycles where cycle.leaked { cycle.objects.forEach(choose) }
            leaked.sorted().forEach(choose)
        case .cyclesWithContext:
            for cycle in cycles where cycle.leaked { cycle.objects.forEach(choose) }
            for cycle in cycles where !cycle.leaked { cycle.objects.forEach(choose) }
            let core = chosenSet
            for edge in edges where chosen.count < enough && (core.contains(edge.from) || core.contains(edge.to)) {
                choose(edge.from)
                choose(edge.to)
            }
        }
        let candidates: Int
        switch options.scope {
        case .everything: candidates = objects.count
        case .leakedOnly: candidates = max(chosen.count, leaked.count)
        case .cyclesWithContext: candidates = max(chosen.count, cycles.reduce(0) { $0 + $1.objects.count })
        }
        // Exact for `.everything`; for the other scopes, the cycle members left out (context
        // objects beyond the cap are not counted).
        let omitted = max(0, candidates - options.maximumNodes)
        if chosen.count > options.maximumNodes { chosen.removeLast(chosen.count - options.maximumNodes) }
        chosenSet = Set(chosen)

        var index: [UInt64: Int] = [:]
        for (position, object) in objects.enumerated() { index[object.id] = position }
        var stackByID: [Int: StackInfo] = [:]
        for stack in stacks { stackByID[stack.id] = stack }

        var out = "digraph leakgraph {\n"
        out += "  graph [rankdir=LR, fontname=\"Helvetica\", labelloc=t"
        var title = options.title ?? "LeakGraph"
        title += " — \(cycles.filter(\.leaked).count) leaked, \(cycles.filter { !$0.leaked }.count) retained cycle(s)"
        if omitted > 0 { title += "; \(omitted) more object(s) not drawn" }
        out += ", label=\(quote(title))];\n"
        out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        for id in chosen {
            guard let position = index[id] else { continue }
            let object = objects[position]
            var lines = [object.type]
            if let label = object.label { lines.append("\"\(label)\"") }
            var idLine = "#\(object.id)"
            if let count = object.strongRetainCount { idLine += "  rc=\(count)" }
            if object.state != .unspecified { idLine += "  \(object.state.rawValue)" }
            lines.append(idLine)
            if let frame = object.stack.flatMap({ stackByID[$0] })?.userFrameDescription {
                lines.append(String(frame.suffix(70)))
            }
            let colors: (fill: String, line: String)
            if inLeakedCycle.contains(id) || leaked.contains(id) {
                colors = ("#ffd6d6", "#d62728")
            } else if inRetainedCycle.contains(id) {
                colors = ("#ffe8c7", "#ff7f0e")
            } else {
                colors = ("#eeeeee", "#888888")
            }
            out +=
                "  n\(id) [label=\(quote(lines.joined(separator: "\n"))), fillcolor=\"\(colors.fill)\", color=\"\(colors.line)\"];\n"
        }
        for edge in edges where chosenSet.contains(edge.from) && chosenSet.contains(edge.to) {
            var attributes: [String] = []
            var label = edge.label
            if edge.count > 1 { label += " ×\(edge.count)" }
            attributes.append("label=\(quote(label))")
            switch edge.kind {
            case .strong: break
            case .weak: attributes.append("style=dashed")
            case .unowned: attributes.append("style=dotted")
            case .unknown: attributes += ["style=dashed", "color=\"#999999\""]
            }
            if cycleEdges.contains("\(edge.from)|\(edge.to)|\(edge.label)") {
                let leakedEdge = inLeakedCycle.contains(edge.from)
                attributes += ["color=\"\(leakedEdge ? "#d62728" : "#ff7f0e")\"", "penwidth=2"]
            }
            if let closure = edge.closure { attributes.append("tooltip=\(quote(closure))") }
            out += "  n\(edge.from) -> n\(edge.to) [\(attributes.joined(separator: ", "))];\n"
        }
        out += "}\n"
        return out
    }

    /// A dot string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
