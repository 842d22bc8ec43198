/// Renders leak findings as text that reads like a leak trace: each leaked cycle as a path with
/// edge labels, where each member was allocated, the one edge whose removal frees the cycle with
/// the usual fix, and the objects held by owners the graph does not show.
///
/// ```
/// Leaked cycle (2 objects): ViewModel —signal→ FlatMap<Int> —capture→ ViewModel
///   ViewModel #41 allocated at ViewModelTests.swift:18 in testBinding()
///   FlatMap<Int> #42 allocated at ViewModel.swift:9 in ViewModel.bind()
///   Fix: the closure `closure #1 in ViewModel.bind()` captures ViewModel strongly: capture it [weak self].
/// ```
public enum LeakTrace {
    /// Describes the leaks among `objects` (all leaked objects when nil).
    ///
    /// - Parameters:
    ///   - snapshot: A symbolicated snapshot (see ``Symbolicator/symbolicate(_:)``).
    ///   - report: Its analysis.
    ///   - objects: Restrict the description to these ids (a test's own objects).
    public static func describe(_ snapshot: GraphSnapshot, report: LeakReport, objects: Set<UInt64>? = nil) -> String {
        var lines: [String] = []
        let relevant: (UInt64) -> Bool = { id in objects?.contains(id) ?? true }
        let cycles = report.cycles.filter { $0.objects.contains(where: relevant) }
        let dominators = cycles.isEmpty ? nil : Dominators(snapshot, report: report)
        // Identical cycles (one signature) are described once, with their count and every place
        // that made them: a test that leaks the same pair a hundred times reads as one finding.
        var signatureGroups: [String: Int] = [:]
        var groups: [[Cycle]] = []
        for cycle in cycles where cycle.leaked && cycle.libraryLeak == nil {
            if let index = signatureGroups[cycle.signature] {
                groups[index].append(cycle)
            } else {
                signatureGroups[cycle.signature] = groups.count
                groups.append([cycle])
            }
        }
        for group in groups {
            let cycle = group[0]
            if group.count == 1 {
                lines.append("Leaked cycle (\(cycle.objects.count) object(s)): \(cycle.loopDescription)")
            } else {
                lines.append(
                    "Leaked cycle ×\(group.count), identical (\(cycle.objects.count) object(s) each): \(cycle.loopDescription)"
                )
                if let made = CycleSites.line(CycleSites.sites(of: group, in: snapshot)) { lines.append("  " + made) }
            }
            lines.append(
                "  "
                    + verdict(
                        for: cycle, in: snapshot, keptAlive: dominators.map { keptAlive(by: cycle, $0) } ?? 0))
            if let dominators { lines.append("  " + culpritLine(for: cycle, dominators, snapshot)) }
            lines += memberLines(cycle, snapshot)
            lines.append("  " + fixLine(for: cycle, in: snapshot))
        }
        // Library leaks: one line per kind, apart, never described as the user's.
        var libraryGroups: [String: (count: Int, first: Cycle)] = [:]
        var libraryOrder: [String] = []
        for cycle in cycles where cycle.leaked {
            guard let known = cycle.libraryLeak else { continue }
            let key = known + "\u{0}" + cycle.signature
            if libraryGroups[key] == nil { libraryOrder.append(key) }
            libraryGroups[key, default: (0, cycle)].count += 1
        }
        for key in libraryOrder {
            guard let group = libraryGroups[key], let known = group.first.libraryLeak else { continue }
            lines.append(
                "Library leak ×\(group.count) (not in your code; \(known)): \(group.first.loopDescription)")
        }
        let libraryOnly = libraryOrder.isEmpty ? [] : KnownLeaks.libraryOnlyObjects(of: report, in: snapshot)
        let inCycles = Set(cycles.flatMap(\.objects))
        let leakedOutside = report.leakedObjectIDs.filter {
            relevant($0) && !inCycles.contains($0) && !libraryOnly.contains($0)
        }.sorted()
        if !leakedOutside.isEmpty {
            lines.append(
                "Kept alive only by the leaked cycles: "
                    + leakedOutside.prefix(10).map { name($0, snapshot) }.joined(separator: ", ")
                    + (leakedOutside.count > 10 ? " and \(leakedOutside.count - 10) more" : ""))
        }
        let possible = Dictionary(report.possibleLeaks.compactMap { leak in leak.cycle.map { ($0, leak) } }) {
            first, _ in first
        }
        for (position, cycle) in report.cycles.enumerated()
        where !cycle.leaked && cycle.objects.contains(where: relevant) {
            if let leak = possible[position] {
                lines.append("Possible leak (\(cycle.objects.count) object(s)): \(cycle.loopDescription)")
                lines.append("  " + possibleLeakSentence(leak, cycle: cycle, snapshot))
            } else {
                lines.append("Retained cycle (\(cycle.objects.count) object(s)): \(cycle.loopDescription)")
            }
            if cycle.unexplainedHolders.isEmpty {
                lines.append(
                    "  (found leaked by one look at the graph and not confirmed by a second: it changed while it was read)"
                )
            }
            for holder in cycle.unexplainedHolders {
                var text = "  \(name(holder.object, snapshot)) is held from outside"
                if holder.unexplained > 0 { text += " by \(holder.unexplained) reference(s) the graph does not show" }
                text += heldByGlobals(holder.object, snapshot)
                if !holder.knownHolders.isEmpty {
                    text +=
                        (holder.unexplained > 0 ? " and" : " by") + " "
                        + holder.knownHolders.prefix(10).map { name($0, snapshot) }.joined(separator: ", ")
                    if holder.knownHolders.count > 10 { text += " and \(holder.knownHolders.count - 10) more" }
                }
                lines.append(text)
            }
            lines += memberLines(cycle, snapshot)
            if let dominators, let owner = topOwner(of: cycle, dominators), dominators.keepsAlive(of: owner) > 0 {
                lines.append("  " + keepsAliveText(owner, dominators, snapshot))
            }
            lines.append("  " + fixLine(for: cycle, in: snapshot) + " (once its outside holders let go, it is freed)")
        }
        for leak in report.possibleLeaks where leak.cycle == nil {
            guard let object = leak.object, relevant(object) else { continue }
            lines.append("Possible leak (1 object): \(name(object, snapshot))")
            lines.append("  " + possibleLeakSentence(leak, cycle: nil, snapshot))
        }
        let possibleObjects = Set(report.possibleLeaks.compactMap(\.object))
        let unknown = report.unknownOwners.filter { relevant($0.object) && !possibleObjects.contains($0.object) }
        if !unknown.isEmpty {
            lines.append(
                "Alive with owners the graph does not show (a local, a global, a closure, an untracked object):")
            for owner in unknown.prefix(20) {
                lines.append(
                    "  \(name(owner.object, snapshot)) — \(owner.unexplained) unexplained reference(s)"
                        + (owner.reachesUnreadMemory ? " (it reaches memory LeakGraph could not read)" : "")
                        + heldByGlobals(owner.object, snapshot)
                        + site(owner.object, snapshot))
            }
            if unknown.count > 20 { lines.append("  … and \(unknown.count - 20) more") }
        }
        let finished = report.finishedButHeld.filter(relevant)
        if !finished.isEmpty {
            lines.append(
                "Finished but still held: "
                    + finished.prefix(10).map { id in
                        "\(name(id, snapshot)) (\(snapshot.object(id)?.state.rawValue ?? "?"))"
                    }.joined(separator: ", "))
        }
        lines += lifecycleLines(
            report.canNeverFinish.filter(relevant),
            heading: "Can never finish (active, but nothing outside can send them an event or a completion; "
                + "they end only when disposed):", snapshot)
        lines += lifecycleLines(
            report.neverFinished.filter(relevant),
            heading: "Never finished (still active; something outside can still send them events):", snapshot)
        // Only where it can matter: a reference discovery could not read counts as held from
        // outside, which can make a verdict "retained", an owner "unknown" or a subscription one
        // that "can never finish", never "leaked". Under a trace of leaked cycles alone it only
        // made people doubt a right answer.
        let verdictsItCouldChange =
            cycles.contains { !$0.leaked } || !unknown.isEmpty || report.canNeverFinish.contains(where: relevant)
        if verdictsItCouldChange && !snapshot.discoveryLimits.isEmpty {
            lines.append(
                "Note: discovery could not read some references (they count as held from outside, so a verdict may "
                    + "say retained where it is leaked): " + snapshot.discoveryLimits.joined(separator: "; ") + ".")
        }
        return lines.joined(separator: "\n")
    }

    /// `possible leak: A —x→ B —y→ A is held only by 1 reference(s) LeakGraph could not read
    /// (context of closure #1 in f() #12, capture: …)` — why a retained cycle may be leaked.
    public static func possibleLeakSentence(_ leak: PossibleLeak, cycle: Cycle?, _ snapshot: GraphSnapshot) -> String {
        let places = leak.unread.map { "\(name($0.object, snapshot)), \($0.place): \($0.why)" }
        let subject = cycle?.loopDescription ?? leak.object.map { name($0, snapshot) } ?? "?"
        let reach = cycle == nil ? "it holds" : "it reaches"
        return "possible leak: \(subject) is held only by \(leak.unexplained) reference(s) the graph "
            + "does not show, and \(reach) memory LeakGraph could not read (" + places.joined(separator: "; ")
            + "); if those are its holders, it is leaked"
    }

    /// The edge whose removal frees a leaked cycle, and the usual way to remove it.
    /// The member of `cycle` that alone keeps the most alive, ties going to the newest.
    public static func topOwner(of cycle: Cycle, _ dominators: Dominators) -> UInt64? {
        cycle.objects.max { (dominators.keepsAlive(of: $0), $0) < (dominators.keepsAlive(of: $1), $1) }
    }

    /// `Culprit: PublishSubject<Int> #3 keeps 4 object(s) alive: Map ×1, Sink ×2, …` — the member
    /// whose release frees the most of the leak, and its victims by type.
    public static func culpritLine(for cycle: Cycle, _ dominators: Dominators, _ snapshot: GraphSnapshot) -> String {
        guard let culprit = topOwner(of: cycle, dominators) else { return "Culprit: unknown" }
        return "Culprit: " + keepsAliveText(culprit, dominators, snapshot)
    }

    /// `X keeps N object(s) alive: T ×2, U ×1`.
    static func keepsAliveText(_ owner: UInt64, _ dominators: Dominators, _ snapshot: GraphSnapshot) -> String {
        let victims = dominators.keptAlive(by: owner)
        var byType: [String: Int] = [:]
        for id in victims { byType[baseName(snapshot.object(id)?.type ?? "?"), default: 0] += 1 }
        let types = byType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(5).map { "\($0.key) ×\($0.value)" }
        // Alone, the owner keeps only itself alive (a one-object cycle): "keeps 0 object(s)
        // alive" read as if it were harmless.
        guard !victims.isEmpty else { return "\(name(owner, snapshot)) keeps only itself alive" }
        var text = "\(name(owner, snapshot)) keeps \(victims.count) object(s) alive"
        if !types.isEmpty { text += ": " + types.joined(separator: ", ") + (byType.count > 5 ? ", …" : "") }
        return text
    }

    public struct Fix: Sendable, Hashable {
        /// The edge to cut.
        public var step: Cycle.PathStep
        /// The edge as text: `SinkDisposer —sink→ MapSink<Int>`.
        public var edge: String
        /// What to change in the code.
        public var advice: String
        /// The change in a few words, as the verdict sentence ends: `make the capture weak`.
        public var action: String
        /// What the user does: cut ``step`` (the usual), or, for a cycle among a dependency's own
        /// objects, end the member the user's code made, or nothing.
        package var remedy = Remedy.cut

        /// What a fix asks of the user.
        package enum Remedy: Sendable, Hashable {
            /// Cut the edge (make it weak, clear it, dispose).
            case cut
            /// End the member the user's code made (its allocation is where the fix goes:
            /// ending it is what breaks a dependency's own cycle).
            case end(UInt64)
            /// Nothing: the cycle is a dependency's own, and nothing in it is the user's. No
            /// edge to cut and no line to fix are given.
            case nothingToChange
        }

        /// How the fix line starts, before its advice: `cut Child —parent→ Parent`, `end
        /// NIOAsyncTestingChannel`, `nothing to change in your code`.
        package func opening(in snapshot: GraphSnapshot) -> String {
            switch remedy {
            case .cut: "cut \(edge)"
            case .end(let made): "end \(snapshot.object(made)?.type ?? "#\(made)")"
            case .nothingToChange: "nothing to change in your code"
            }
        }
    }

    /// Labels that usually name a reference back up an ownership tree.
    static let backReferenceWords = [
        "parent", "delegate", "owner", "observer", "handler", "callback", "target", "container",
    ]

    /// ` (held by global keptForever (App), a local in run() at main.swift:12)` when globals or
    /// stacks were found holding the object or its code named its outside holder; else "".
    static func heldByGlobals(_ id: UInt64, _ snapshot: GraphSnapshot) -> String {
        guard let object = snapshot.object(id) else { return "" }
        return holdersText(globals: object.heldByGlobals, outside: object.outsideHolders)
    }

    /// ` (held by global a, global b, a Dispatch timer (…))`, or "" for none: the one wording of
    /// every output for what holds an object from outside the graph.
    package static func holdersText(globals: [String], outside: [String]) -> String {
        let holders = globals.map { "global \($0)" } + outside
        return holders.isEmpty ? "" : " (held by \(holders.joined(separator: ", ")))"
    }

    /// Chooses the edge to cut, in order of preference: a capture made by the user's own
    /// closure (`[weak self]`); the first step a library's rule matches (LeakGraphRx: the
    /// subscription's `SinkDisposer`, then a subject holding its subscriber; LeakGraphCombine: a
    /// subscription); a capture inside a library's primitives; a back reference (`parent`,
    /// `delegate`, …); the edge that closes the loop.
    ///
    /// - Parameters:
    ///   - rules: The library rules to try, in order; by default those registered with
    ///     ``LeakAdvice/register(_:)``.
    ///   - libraryClosureHolders: Type name prefixes whose unnamed captures are a library's own;
    ///     by default those registered with ``LeakAdvice/registerLibraryClosureHolders(typePrefixes:)``.
    public static func fix(
        for cycle: Cycle, in snapshot: GraphSnapshot, rules: [LeakAdviceRule] = LeakAdvice.registeredRules,
        libraryClosureHolders: [String] = LeakAdvice.libraryClosureHolderPrefixes
    ) -> Fix? {
        let steps = cycle.path
        guard let last = steps.last else { return nil }
        func type(_ id: UInt64) -> String { snapshot.object(id)?.type ?? "?" }
        func make(_ step: Cycle.PathStep, _ advice: String, _ action: String? = nil) -> Fix {
            Fix(
                step: step, edge: "\(type(step.from)) —\(step.label)→ \(type(step.to))", advice: advice,
                action: action ?? "cut `\(step.label)` in \(baseName(type(step.from)))")
        }
        func closure(of step: Cycle.PathStep) -> String? {
            snapshot.edges.first { $0.from == step.from && $0.to == step.to && $0.label == "capture" }?.closure
        }
        let captures = steps.filter { $0.label == "capture" }
        let userCaptures = captures.filter { step in
            guard let name = closure(of: step) else {
                let holder = type(step.from)
                return !libraryClosureHolders.contains { holder.hasPrefix($0) }
            }
            return !name.hasSuffix(Symbolicator.ownClosureMarker) && !Symbolicator.isLeakGraphFile(name)
                && !Symbolicator.isDependencyFile(name)
        }
        // A closure someone wrote before one the compiler made: an implicit closure or a thunk
        // is how a library stores a method reference (`canceller.cancel` in OpenCombine's
        // `AnyCancellable.init<C>`), while the user's `{ self.total += $0 }` is an explicit one.
        // And a capture of one of the user's objects before one of another closure's context
        // (a thunk's context holding the closure's own).
        func isContext(_ id: UInt64) -> Bool {
            let name = type(id)
            return name == Symbolicator.closureContextType || name.hasPrefix(ObjectInfo.namedClosureContextPrefix)
        }
        let written = userCaptures.filter { step in
            guard let name = closure(of: step) else { return false }
            return !name.hasPrefix("implicit closure") && !name.contains("thunk for ")
                && !name.contains("partial apply")
        }
        let userCapture =
            written.first { !isContext($0.to) } ?? userCaptures.first { !isContext($0.to) } ?? written.first
            ?? userCaptures.first
        // A task's frames holding one of the user's objects (a child task's group owner: `self`
        // kept in the parent's frames) is a task in the loop, below; a task holding only what it
        // awaits (storage of the standard library) is this one. A link from a child task to its
        // parent is never the cut.
        let taskFrames = steps.first { type($0.from) == TaskNode.typeName && $0.label != TaskNode.parentTaskLabel }
        let framesHoldUserObject =
            taskFrames.map { step in
                let held = type(step.to)
                return !held.hasPrefix("_") && held != TaskNode.typeName && !isContext(step.to)
            } ?? false
        if userCapture == nil, captures.isEmpty, !framesHoldUserObject,
            let frames = taskFrames ?? steps.first(where: { type($0.from) == TaskNode.typeName })
        {
            // Only a task and what it awaits: whatever could resume it was let go unfinished
            // (`[weak self]` in the task, the owner gone, the stream's continuation dropped).
            let awaited = type(frames.to)
            return make(
                frames,
                "the Task can never finish: it waits on \(awaited), which only the task itself still holds — the "
                    + "continuation that could resume it was let go without `finish()` or `resume`. Finish the "
                    + "stream (`continuation.finish()`) or resume the continuation before letting it go, or cancel "
                    + "the task (`task.cancel()`).",
                "finish what the task awaits, or cancel the task")
        }
        if steps.contains(where: { type($0.from) == TaskNode.typeName }) {
            // A task in the loop: it waits on something only the loop holds, so it never finishes.
            // Its owner keeps its handle (`task._task`); a continuation that can resume it is no owner.
            let handles = steps.filter { type($0.to) == TaskNode.typeName && $0.label != TaskNode.parentTaskLabel }
            let held = userCapture.map { type($0.to) } ?? (framesHoldUserObject ? taskFrames.map { type($0.to) } : nil)
            let owner =
                (handles.first { $0.label.hasSuffix("_task") } ?? (held == nil ? handles.first : nil))
                .map { type($0.from) } ?? held ?? "its owner"
            let heldOrOwner = held ?? owner
            let step = userCapture ?? taskFrames ?? steps.first { type($0.from) == TaskNode.typeName } ?? last
            // Retained: what resumes it (a producer, a clock) is held from outside, and it keeps
            // the cycle alive for as long as that lasts.
            let waits =
                cycle.leaked
                ? "the Task in this cycle can never finish: it waits on something only the cycle holds (a stream's "
                    + "continuation, a stored continuation)."
                : "the Task in this cycle keeps it alive until it finishes, and what can resume it (a producer, a "
                    + "clock) is held from outside the cycle."
            return make(
                step,
                waits + " Capture \(heldOrOwner) weakly in the task's closure ([weak self]), and when \(owner) is done "
                    + "cancel the task (`task?.cancel()`) and finish or resume what it awaits (`continuation.finish()`).",
                "capture \(baseName(heldOrOwner)) weakly in the task and cancel it when done")
        }
        if let capture = userCapture {
            let which =
                closure(of: capture).map { "the closure `\(shortClosure($0))`" }
                ?? "a closure kept by \(type(capture.from))"
            return make(
                capture,
                "\(which) captures \(type(capture.to)) strongly; capture it weakly ([weak self], or [weak \(lowerFirst(type(capture.to)))]).",
                "make the capture of \(baseName(type(capture.to))) weak")
        }
        for rule in rules {
            if let step = steps.first(where: { rule.matches(ownerType: type($0.from), label: $0.label) }) {
                return make(step, rule.advice, rule.action)
            }
        }
        if let capture = captures.first {
            return make(
                capture, "a closure captures \(type(capture.to)) strongly; capture it weakly.",
                "make the capture of \(baseName(type(capture.to))) weak")
        }
        var back = steps.first { step in backReferenceWords.contains { step.label.lowercased().contains($0) } } ?? last
        // A field a dependency declares cannot be changed by the user: one of the user's own on
        // the loop is the one to change; with none, the cycle is the dependency's own structure.
        switch dependencyChoice(cycle, back: back, in: snapshot, make: make) {
        case .fix(let fix): return fix
        case .field(let field): back = field
        case .none: break
        }
        let backField = FieldDeclaration.fieldName(ofLabel: back.label)
        if let field = backField, isInsideField(back.label) {
            // `subscriptions[1]`, `history[0].subscription`: the reference sits inside the
            // field's storage (an array element, a value's member), where `weak` cannot go.
            // An element of a collection is removed; a member of a stored value (an enum's
            // payload: `status.subscribed`) goes when the field is set to a value without it.
            let rest = fieldRemainder(of: back.label)
            let element = rest.hasPrefix("[") || rest.hasPrefix(".keys[")
            let release =
                element
                ? "remove it from `\(field)`" : "set `\(field)` to a value that does not hold it"
            return make(
                back,
                "`\(back.label)` is inside `\(field)` of \(type(back.from)), where a reference cannot be weak: \(release) "
                    + "(cancel or dispose it first) when \(type(back.from)) is done, or keep a weak box there instead; "
                    + "it points back to \(type(back.to)).",
                "clear `\(field)` in \(baseName(type(back.from))) when it is done")
        }
        if let field = backField, isWholeField(back.label),
            let declaration = snapshot.declaration(of: field, in: type(back.from)),
            let declared = declaredType(of: declaration), !canBeWeak(declared)
        {
            // `var instance: Any?` holding an object: `weak` needs a class-bound type.
            return make(
                back,
                "`\(field)` in \(type(back.from)) is declared `\(declared)`, which cannot be weak: set it to nil when "
                    + "\(type(back.from)) is done, or keep a weak box there instead; it points back to \(type(back.to)).",
                "clear `\(field)` in \(baseName(type(back.from))) when it is done")
        }
        if let field = backField, back.label.hasPrefix(FieldDeclaration.lazyStoragePrefix) {
            // A `lazy var`'s storage: the property itself, but `lazy` cannot be `weak`.
            return make(
                back,
                "`\(field)` in \(type(back.from)) is a `lazy var`, which cannot be weak: clear it when \(type(back.from)) is "
                    + "done (declare it optional), or have what it holds keep \(type(back.to)) weakly; "
                    + "it points back to \(type(back.to)).",
                "clear `\(field)` in \(baseName(type(back.from))) when it is done")
        }
        return make(
            back,
            "make `\(back.label)` in \(type(back.from)) weak (`weak var`, or @WeakRef), or clear it when \(type(back.from)) is done; "
                + "it points back to \(type(back.to)).", "make `\(back.label)` in \(baseName(type(back.from))) weak")
    }

    /// The fix as one line: `cut <edge>: <advice>`.
    public static func hint(for cycle: Cycle, in snapshot: GraphSnapshot) -> String {
        guard let fix = fix(for: cycle, in: snapshot) else { return "make one reference in the cycle weak." }
        return "\(fix.opening(in: snapshot)): \(fix.advice)"
    }

    /// The fix line every output uses (test failures, `leakgraph report`, the HTML page, the
    /// demo): `Fix: cut <edge>: <advice>`.
    public static func fixLine(for cycle: Cycle, in snapshot: GraphSnapshot) -> String {
        "Fix: " + hint(for: cycle, in: snapshot)
    }

    /// The cycle in one sentence, in the user's terms: what keeps itself alive and through what,
    /// how many objects leak, the line to fix and what to do there.
    ///
    /// ```
    /// SinkDisposer keeps itself alive through SinkDisposer —sink→ AnonymousObservableSink<…>
    /// —cancel→ SinkDisposer; 4 objects leak; fix at Fixtures.swift:39 (forgetSubscription()):
    /// dispose the subscription (or complete its source).
    /// ```
    ///
    /// - Parameter keptAlive: Objects outside the cycle that only it keeps alive (counted in
    ///   the objects that leak).
    public static func verdict(for cycle: Cycle, in snapshot: GraphSnapshot, keptAlive: Int = 0) -> String {
        let fix = fix(for: cycle, in: snapshot)
        // The loop from the edge to cut, so that the sentence starts with the object to change.
        var steps = cycle.path
        if let fix, let start = steps.firstIndex(of: fix.step) { steps = Array(steps[start...] + steps[..<start]) }
        func short(_ id: UInt64) -> String {
            let type = snapshot.object(id)?.type ?? "#\(id)"
            // A closure context by its function (`context of resolveAsWrapper`): its whole name
            // cut to fit read `context of closure #1 i…B>(name:option:invoker:)`.
            if type.hasPrefix(ObjectInfo.namedClosureContextPrefix) { return ObjectInfo.baseTypeName(type) }
            return DotExporter.shorten(type, to: 48)
        }
        var loop = steps.first.map { short($0.from) } ?? ""
        for step in steps { loop += " —\(step.label)→ " + short(step.to) }
        let owner = steps.first.map(\.from) ?? cycle.objects.first ?? 0
        var sentence = "\(short(owner)) keeps itself alive through \(loop)"
        if cycle.leaked {
            let count = cycle.objects.count + max(0, keptAlive)
            sentence += "; \(count) object\(count == 1 ? " leaks" : "s leak")"
        } else {
            let outside = cycle.unexplainedHolders.reduce(0) { $0 + $1.unexplained + $1.knownHolders.count }
            sentence += "; it is retained, not leaked: \(outside) reference(s) from outside still hold it"
        }
        if let place = fixSite(for: cycle, fix: fix, in: snapshot) {
            sentence += "; fix at \(place)" + (fix.map { ": " + $0.action } ?? "")
        } else if let fix {
            sentence += "; " + fix.action
        }
        return sentence + "."
    }

    /// Objects outside `cycle` that only it keeps alive, for ``verdict(for:in:keptAlive:)``:
    /// what its culprit keeps alive, less the cycle's other members.
    public static func keptAlive(by cycle: Cycle, _ dominators: Dominators) -> Int {
        guard cycle.leaked, let culprit = topOwner(of: cycle, dominators) else { return 0 }
        return max(0, dominators.keepsAlive(of: culprit) + 1 - cycle.objects.count)
    }

    /// Where to change the code: the line that declares the property to change (`main.swift:10
    /// (`var parent: Parent?` → `weak var parent: Parent?`)`), or the capturing closure's own line;
    /// else the site that made the edge to cut when the edge recorded one (`disposed(by:)`, a
    /// property wrapper's assignment), else where its owner was allocated, else where any member
    /// was.
    static func fixSite(for cycle: Cycle, fix: Fix?, in snapshot: GraphSnapshot) -> String? {
        if let fix {
            let edge = snapshot.edges.first {
                $0.from == fix.step.from && $0.to == fix.step.to && $0.label == fix.step.label
            }
            switch fix.remedy {
            case .end(let made):
                if let frame = snapshot.stack(snapshot.object(made)?.stack)?.userFrameDescription {
                    return placeDescription(frame)
                }
            case .nothingToChange:
                // No line of the user's to give, and never one of the dependency's.
                return nil
            case .cut:
                break
            }
            if let field = FieldDeclaration.fieldName(ofLabel: fix.step.label),
                let owner = snapshot.object(fix.step.from)?.type,
                let declaration = snapshot.declaration(of: field, in: owner), declaration.dependencyName == nil
            {
                // Only a reference that is the field itself can be declared weak: not an element
                // of an array it holds, nor a member of a value stored in it.
                return declarationPlace(
                    declaration, makingWeak: fix.action.hasSuffix(" weak") && isWholeField(fix.step.label))
            }
            if fix.step.label == "capture", var closure = edge?.closure, closure.contains(" at ") {
                if closure.hasSuffix(" " + Symbolicator.ownClosureMarker) {
                    closure.removeLast(Symbolicator.ownClosureMarker.count + 1)
                }
                return placeDescription(closure)
            }
            if let frame = snapshot.stack(edge?.site)?.userFrameDescription { return placeDescription(frame) }
            if let frame = snapshot.stack(snapshot.object(fix.step.from)?.stack)?.userFrameDescription {
                return placeDescription(frame)
            }
        }
        for id in cycle.objects {
            if let frame = snapshot.stack(snapshot.object(id)?.stack)?.userFrameDescription {
                return placeDescription(frame)
            }
        }
        return nil
    }

    /// `function at path/File.swift:12` → `File.swift:12 (function)`.
    static func placeDescription(_ frame: String) -> String {
        let parts = frame.split(separator: " at ", omittingEmptySubsequences: false)
        guard parts.count >= 2, let path = parts.last else { return frame }
        let file = path.split(separator: "/").last ?? path
        return "\(file) (\(parts.dropLast().joined(separator: " at ")))"
    }

    /// `Sink<Int>` → `Sink`; `Module.Type` → `Type`.
    static func baseName(_ type: String) -> String {
        ObjectInfo.baseTypeName(type)
    }

    /// A heading and one line per object (ten at most) with where it was allocated.
    private static func lifecycleLines(_ ids: [UInt64], heading: String, _ snapshot: GraphSnapshot) -> [String] {
        guard !ids.isEmpty else { return [] }
        return [heading]
            + ids.prefix(10).map { id in
                "  \(name(id, snapshot))" + (site(id, snapshot).isEmpty ? "" : " allocated" + site(id, snapshot))
            } + (ids.count > 10 ? ["  … and \(ids.count - 10) more"] : [])
    }

    private static func memberLines(_ cycle: Cycle, _ snapshot: GraphSnapshot) -> [String] {
        let ordered = cycle.path.map(\.from) + cycle.objects.filter { id in !cycle.path.contains { $0.from == id } }
        return ordered.prefix(12).map { id in
            "  \(name(id, snapshot))" + (site(id, snapshot).isEmpty ? "" : " allocated" + site(id, snapshot))
        }
            + (ordered.count > 12 ? ["  … and \(ordered.count - 12) more"] : [])
    }

    static func name(_ id: UInt64, _ snapshot: GraphSnapshot) -> String {
        snapshot.object(id)?.displayName ?? "#\(id)"
    }

    static func site(_ id: UInt64, _ snapshot: GraphSnapshot) -> String {
        guard let frame = snapshot.stack(snapshot.object(id)?.stack)?.userFrameDescription else { return "" }
        return " at \(frame)"
    }

    private static func shortClosure(_ text: String) -> String {
        guard let range = text.range(of: " at ") else { return text }
        return String(text[..<range.lowerBound]) + " (" + text[range.upperBound...] + ")"
    }

    private static func lowerFirst(_ text: String) -> String {
        let base = baseName(text)
        return base.prefix(1).lowercased() + base.dropFirst()
    }
}
