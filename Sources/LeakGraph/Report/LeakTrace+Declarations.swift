/// The fix's words about the field it cuts: where the field is declared and what it becomes, and
/// what an edge's label says about the field it goes through.
extension LeakTrace {
    /// `main.swift:10 (`var parent: Parent?` → `weak var parent: Parent?`)`: the declaration, and
    /// when the fix makes it weak, the declaration made weak.
    static func declarationPlace(_ declaration: FieldDeclaration, makingWeak: Bool) -> String {
        let file = declaration.file.split(separator: "/").last.map(String.init) ?? declaration.file
        var text = "`\(declaration.text)`"
        // `lazy` and `weak` do not go together: a lazy property's fix is to clear it.
        if makingWeak, !declaration.text.contains("weak "), !declaration.text.contains("unowned "),
            !declaration.text.contains("lazy "), declaredType(of: declaration).map(canBeWeak) ?? true
        {
            // The property as written: `name`, or `_name` (found for a label `_name`).
            let written =
                [declaration.field, "_" + declaration.field].first { name in
                    ["var ", "let "].contains {
                        declaration.text.contains($0 + name + ":") || declaration.text.contains($0 + name + " ")
                    }
                } ?? declaration.field
            for keyword in ["var ", "let "] {
                if let range = declaration.text.range(of: keyword + written) {
                    var weak = declaration.text
                    weak.replaceSubrange(range, with: "weak var " + written)
                    // A weak reference is optional: `let document: Document` → `weak var document: Document?`
                    // (`= owner` after it stays as written).
                    if let type = typeRange(in: weak, field: declaration.field), !weak[type].hasSuffix("?"),
                        !weak[type].hasSuffix("!"), !weak[type].hasPrefix("Optional<")
                    {
                        weak.insert("?", at: type.upperBound)
                    }
                    text += " → `\(weak)`"
                    break
                }
            }
        }
        return "\(file):\(declaration.line) (\(text))"
    }

    /// The type a declaration writes after its field's name (`var parent: Parent? = nil` →
    /// `Parent?`); nil when it writes none (`var parent = Parent()`).
    static func declaredType(of declaration: FieldDeclaration) -> String? {
        typeRange(in: declaration.text, field: declaration.field).map { String(declaration.text[$0]) }
    }

    /// Where `text` writes `field`'s type: after `field: `, up to an initializer or accessor
    /// block, spaces left out; nil when it writes none.
    private static func typeRange(in text: String, field: String) -> Range<String.Index>? {
        guard let colon = text.range(of: field + ": ") else { return nil }
        var end = text[colon.upperBound...].firstIndex { $0 == "=" || $0 == "{" } ?? text.endIndex
        while end > colon.upperBound, text[text.index(before: end)] == " " { end = text.index(before: end) }
        return end > colon.upperBound ? colon.upperBound..<end : nil
    }

    /// Whether a property of `type` may be declared `weak`: not `Any`, a collection or a tuple
    /// (an object found there is held through a value), nor a type that only a class-bound
    /// protocol could tell apart from a value — those are left to the user.
    static func canBeWeak(_ type: String) -> Bool {
        var base = Substring(type)
        while base.hasSuffix("?") || base.hasSuffix("!") { base = base.dropLast() }
        // `Optional<[X]>` is `[X]?`.
        while base.hasPrefix("Optional<") && base.hasSuffix(">") { base = base.dropFirst("Optional<".count).dropLast() }
        return base != "Any" && !base.hasPrefix("[") && !base.hasPrefix("(")
    }

    /// Whether an edge's label goes inside a stored property (`items[0]`, `state.owner`,
    /// `index.keys[0]`), where no `weak` can go; not `_delegate`, a property of that name.
    static func isInsideField(_ label: String) -> Bool {
        let rest = fieldRemainder(of: label)
        return rest.hasPrefix("[") || rest.hasPrefix(".")
    }

    /// What follows the property a label starts with: `[0].subscription` for
    /// `history[0].subscription`.
    static func fieldRemainder(of label: String) -> Substring {
        let prefix = FieldDeclaration.lazyStoragePrefix
        let unprefixed = label.hasPrefix(prefix) ? label.dropFirst(prefix.count) : Substring(label)
        return unprefixed.drop { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// Whether an edge's label is a stored property itself (`parent`, or a `lazy var`'s storage),
    /// not a place inside one (`items[0]`, `state.owner`) or a property wrapper's storage (`_name`).
    static func isWholeField(_ label: String) -> Bool {
        guard let field = FieldDeclaration.fieldName(ofLabel: label) else { return false }
        // `_name`: a property of that very name (or a wrapper's storage, whose fix is its own).
        return label == field || label == "_" + field || label == FieldDeclaration.lazyStoragePrefix + field
    }
}
