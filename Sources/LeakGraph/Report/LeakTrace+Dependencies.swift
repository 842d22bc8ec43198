/// Where a cycle among a dependency's own objects is fixed: the object the user's code made (see
/// ``LeakTrace/Fix/Remedy``).
extension LeakTrace {
    /// What ``fix(for:in:rules:libraryClosureHolders:)`` does with a back reference a dependency
    /// declares: change one of the user's own fields on the loop instead, or give the
    /// dependency's own cycle its fix.
    enum DependencyChoice {
        /// The user's own field to change instead.
        case field(Cycle.PathStep)
        /// The cycle is the dependency's own: end what the user's code made, or nothing.
        case fix(Fix)
    }

    /// The choice for `back`, the step ``fix(for:in:rules:libraryClosureHolders:)`` would cut;
    /// nil when the user's own code declares it (or nothing is known of its declaration).
    static func dependencyChoice(
        _ cycle: Cycle, back: Cycle.PathStep, in snapshot: GraphSnapshot,
        make: (Cycle.PathStep, String, String?) -> Fix
    ) -> DependencyChoice? {
        func type(_ id: UInt64) -> String { snapshot.object(id)?.type ?? "?" }
        func declaration(of step: Cycle.PathStep) -> FieldDeclaration? {
            FieldDeclaration.fieldName(ofLabel: step.label).flatMap {
                snapshot.declaration(of: $0, in: type(step.from))
            }
        }
        guard let declared = declaration(of: back), let library = declared.dependencyName else { return nil }
        let declaredBy =
            "`\(back.label)` in \(type(back.from)) is declared by \(library) (`\(declared.text)`, "
            + "\(declared.file):\(declared.line))"
        // The user's own fields on the loop, a back reference first (making an owning one weak
        // would free what it owns at once).
        let own = cycle.path.filter { step in declaration(of: step).map { $0.dependencyName == nil } ?? false }
        if let field = own.first(where: { step in
            backReferenceWords.contains { step.label.lowercased().contains($0) }
        }) ?? own.first {
            return .field(field)
        }
        if let made = madeByUserCode(cycle, snapshot) {
            // NIO's channel pipeline (`ChannelHandlerContext.prev` ⇄ `next`), broken when the
            // channel is closed: the fix is to end what the user's code made, where it made it.
            let madeType = type(made)
            var fix = make(
                back,
                declaredBy + ", not in your code: \(library) lets go of this cycle when what holds it is "
                    + "ended. End \(madeType), which your code made, when you are done with it (close, finish, "
                    + "cancel or shut it down, as \(library) documents).",
                "end \(baseName(madeType)) when done (close, finish or cancel it); the cycle is \(library)'s own")
            fix.remedy = .end(made)
            return .fix(fix)
        }
        // Nothing of the user's in it (a dependency's singleton and its event loops): said as
        // the dependency's, never as a change to the dependency's file.
        var fix = make(
            back,
            declaredBy + ", and none of the cycle's objects was made by your code: the cycle is "
                + "\(library)'s own, and it ends when \(library) lets it go (a retained one, when what holds it "
                + "from outside does).",
            "nothing to change in your code: the cycle is \(library)'s own")
        fix.remedy = .nothingToChange
        return .fix(fix)
    }

    /// The member of `cycle` the user's code made itself: of those the user's frame made by
    /// calling an initialiser (only initialisers between the allocation and that frame: not a
    /// dependency's singleton made lazily under some call of the user's), the one allocated
    /// nearest that frame (`NIOAsyncTestingChannel()` at the user's line, not the pipeline its
    /// initialiser made); nil when there is none. (A frame in another package, by its path as
    /// reports show it, is taken for a dependency's: a local package's too, which then gets the
    /// more cautious "the dependency's own".)
    static func madeByUserCode(_ cycle: Cycle, _ snapshot: GraphSnapshot) -> UInt64? {
        var best: (id: UInt64, depth: Int)?
        for id in cycle.path.map(\.from) + cycle.objects {
            guard let stack = snapshot.stack(snapshot.object(id)?.stack), let depth = stack.userFrame,
                stack.frames.indices.contains(depth),
                Symbolicator.dependencyName(ofShortPath: placeFile(stack.frames[depth])) == nil,
                stack.frames[..<depth].allSatisfy({ $0.containsBytes("init(") || $0.containsBytes("__allocating_init") }
                )
            else { continue }
            if best.map({ depth < $0.depth }) ?? true { best = (id, depth) }
        }
        return best?.id
    }

    /// The file of `function at path/File.swift:12`: `path/File.swift`.
    static func placeFile(_ frame: String) -> String {
        guard let range = frame.range(of: " at ", options: .backwards) else { return "" }
        let place = frame[range.upperBound...]
        guard let colon = place.lastIndex(of: ":"), place[place.index(after: colon)...].allSatisfy(\.isNumber) else {
            return String(place)
        }
        return String(place[..<colon])
    }
}
