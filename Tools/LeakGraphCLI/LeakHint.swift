import LeakGraph

/// Chooses the edge whose removal frees a leaked cycle, and names the usual fix.
///
/// In order of preference: a closure's `capture` edge (use `[weak self]`); the edge between a
/// `SinkDisposer` and its `Sink` (keep the disposable, `disposed(by:)`); a back reference
/// (`parent`, `delegate`, `owner`, …); the edge that closes the loop (make it weak).
enum LeakHint {
    /// Labels that usually name a reference back up an ownership tree.
    static let backReferenceWords = [
        "parent", "delegate", "owner", "observer", "handler", "callback", "target", "container",
    ]

    static func choose(for cycle: Cycle, in snapshot: GraphSnapshot, edges: CycleEdges) -> LeakSummary.Hint? {
        guard !cycle.path.isEmpty else { return nil }
        func type(_ id: UInt64) -> String { snapshot.object(id)?.type ?? "?" }
        func hint(_ step: Cycle.PathStep, _ fix: String) -> LeakSummary.Hint {
            LeakSummary.Hint(
                from: step.from, to: step.to, label: step.label,
                edge: "\(type(step.from)) —\(step.label)→ \(type(step.to))", fix: fix)
        }
        if let step = cycle.path.first(where: { $0.label == "capture" || edges.edge(for: $0)?.closure != nil }) {
            let closure = edges.edge(for: step)?.closure.map { " in \($0)" } ?? ""
            return hint(
                step,
                "a closure\(closure) captures \(type(step.to)) strongly: capture it weakly "
                    + "(`[weak self]`, or `[weak \(variableName(type(step.to)))]`)")
        }
        let disposerStep =
            cycle.path.first { baseName(type($0.from)) == "SinkDisposer" }
            ?? cycle.path.first { baseName(type($0.to)) == "SinkDisposer" }
            ?? cycle.path.first { baseName(type($0.from)).hasSuffix("Sink") || baseName(type($0.to)).hasSuffix("Sink") }
        if let step = disposerStep {
            return hint(
                step,
                "a subscription that is never disposed: keep the Disposable that subscribe returns and dispose it "
                    + "(`.disposed(by: disposeBag)`), which breaks this edge")
        }
        let step =
            cycle.path.first { step in
                let label = step.label.lowercased()
                return backReferenceWords.contains { label.contains($0) }
            } ?? cycle.path[cycle.path.count - 1]
        return hint(
            step,
            "make `\(step.label)` in \(type(step.from)) a weak reference (`weak var`, or `@WeakRef`); "
                + "it points back to \(type(step.to))")
    }

    /// `Sink<Int>` → `Sink`; `Module.Type` → `Type`.
    static func baseName(_ type: String) -> String {
        let plain = type.prefix { $0 != "<" }
        return String(plain.split(separator: ".").last ?? plain)
    }

    /// `ViewModel` → `viewModel`.
    static func variableName(_ type: String) -> String {
        let name = baseName(type)
        guard let first = name.first else { return "object" }
        return first.lowercased() + name.dropFirst()
    }
}
