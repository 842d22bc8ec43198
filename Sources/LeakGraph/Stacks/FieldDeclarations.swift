import Foundation

/// Finds where the stored properties a fix names are declared.
///
/// The debug info Swift emits keeps no line for a stored property (its accessors are
/// compiler-generated, line 0). It does keep the class's: its deallocating deinit (the `destroy`
/// function every class metadata points to) is placed at the class declaration. From that line the
/// class body is read from the source file, for `var name` / `let name` at the body's own brace
/// depth; a property declared in a superclass is looked for there, up the metadata's superclass
/// chain. Nothing is guessed: no symbolizer, no debug info, no readable source or no match, and no
/// declaration is given (the report then names the allocation site, as before).
package enum FieldDeclarations {
    /// The declarations of the fields the steps of `cycles` go through, where they can be found.
    /// In-process only: it reads class metadata of types the snapshots of this process named.
    package static func find(for cycles: [Cycle], in snapshot: GraphSnapshot) -> [FieldDeclaration] {
        var wanted: [String: Set<String>] = [:]
        // A loop's text names each step's type and label, so the cycles of one loop (half a
        // million leaked pairs of one shape) ask for the same fields: each loop is read once.
        // Reading every cycle's steps took a second of a 500k-pair dump at exit.
        var loopsRead = Set<String>()
        var previousLoop: String?
        for cycle in cycles {
            // Cycles come grouped by signature: most repeats are the previous cycle's loop,
            // whose string is then the same storage (compared without hashing).
            if cycle.loopDescription == previousLoop { continue }
            previousLoop = cycle.loopDescription
            guard loopsRead.insert(cycle.loopDescription).inserted else { continue }
            for step in cycle.path {
                guard let field = FieldDeclaration.fieldName(ofLabel: step.label),
                    let position = snapshot.position(of: step.from)
                else { continue }
                wanted[snapshot.objects[position].type, default: []].insert(field)
            }
        }
        guard !wanted.isEmpty else { return [] }
        let map = MemoryMap.current()
        var sources = SourceCache()
        var found: [FieldDeclaration] = []
        let classes = Snapshotter.classMetadata(named: Set(wanted.keys), map: map)
        let chains = classes.mapValues { classChain(from: $0, map: map) }
        // Every class's deinit looked up in one batch, not one symbolizer round per class.
        _ = Symbolicator.frameChains(
            for: Array(Set(chains.values.joined().compactMap { destroyFunction(of: $0, map: map) })),
            returnAddresses: false)
        for (type, fields) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let chain = chains[type] else { continue }
            let declarations = chain.compactMap { classDeclaration(of: $0, map: map) }
            for field in fields.sorted() {
                for (file, line) in declarations {
                    // A label `_name` is a property wrapper's storage of `name`, or a property
                    // really named `_name` (NIO's `_succeededVoidFuture`): both are looked for.
                    guard
                        let (number, text) = sources.declaration(of: field, inTypeAt: line, file: file)
                            ?? sources.declaration(of: "_" + field, inTypeAt: line, file: file)
                    else {
                        continue
                    }
                    found.append(
                        FieldDeclaration(
                            type: type, field: field, file: Symbolicator.shortPath(file), line: number, text: text,
                            isInDependency: Symbolicator.isCheckoutFile(file)))
                    break
                }
            }
        }
        return found
    }

    /// `metadata` and its superclasses' metadata (Swift classes only; at most 16).
    private static func classChain(from metadata: UInt, map: MemoryMap) -> [UInt] {
        var chain: [UInt] = []
        var current = metadata
        while chain.count < 16, current != 0, let pointer = UnsafeRawPointer(bitPattern: current),
            HeapObjectKind.isClassMetadata(pointer, map: map)
        {
            chain.append(current)
            // The superclass follows the kind word.
            current = pointer.load(fromByteOffset: 8, as: UInt.self)
        }
        return chain
    }

    /// The file and line where the class of `metadata` is declared: where its deallocating
    /// deinit, which the metadata's `destroy` word points to, starts.
    private static func classDeclaration(of metadata: UInt, map: MemoryMap) -> (file: String, line: Int)? {
        guard let destroy = destroyFunction(of: metadata, map: map) else { return nil }
        let frame = Symbolicator.frames(for: [destroy], returnAddresses: false)[0]
        // The deallocating deinit (`…CfD`), at the class's own line; anything else is not it.
        guard let function = frame.function, function.hasSuffix(".__deallocating_deinit"),
            let file = frame.file, file.hasPrefix("/"), let line = frame.startLine ?? frame.line, line > 0
        else { return nil }
        return (file, line)
    }
}

/// The deallocating deinit the class metadata at `metadata` points to (its `destroy` word),
/// when it is code in an image.
private func destroyFunction(of metadata: UInt, map: MemoryMap) -> UInt? {
    // Before the address point: the layout string, destroy, the value witnesses.
    let destroyAddress = metadata &- 16
    guard map.readableBytes(at: destroyAddress) >= 8, let pointer = UnsafeRawPointer(bitPattern: destroyAddress)
    else { return nil }
    let destroy = pointer.load(as: UInt.self)
    guard destroy != 0, map.isImage(destroy, length: 1) else { return nil }
    return destroy
}

/// Source files read once each, and the property declarations found in them.
///
/// Lines are scanned as UTF-8 bytes (the braces, quotes and comment marks it counts are ASCII):
/// Foundation's `range(of:)` and a walk by characters for every line of every class body were 4 %
/// of a test suite's run with its dump at exit.
struct SourceCache {
    private var files: [String: [Substring]?] = [:]
    /// Answers already given, by file, line and field: the specialisations of one generic class
    /// are different types with one declaration.
    private var answers: [String: (Int, String)?] = [:]

    /// The line number and text of `var field` / `let field` in the body of the type declared
    /// at `line` of `file` (at the body's own depth: never a local in a method).
    mutating func declaration(of field: String, inTypeAt line: Int, file: String) -> (Int, String)? {
        let key = "\(line):\(field):\(file)"
        if let known = answers[key] { return known }
        let found = findDeclaration(of: field, inTypeAt: line, file: file)
        answers[key] = .some(found)
        return found
    }

    private mutating func findDeclaration(of field: String, inTypeAt line: Int, file: String) -> (Int, String)? {
        if files[file] == nil {
            let text = (try? String(contentsOfFile: file, encoding: .utf8))
            files[file] = .some(text.map(Self.lines))
        }
        guard let lines = files[file] ?? nil, line >= 1, line <= lines.count else { return nil }
        // A class with a `deinit` of its own places its deallocating deinit there, not at the
        // class: the body is the scope that deinit is in.
        var line = line
        if Self.code(of: lines[line - 1]).trimmingCharacters(in: .whitespaces).hasPrefix("deinit") {
            guard let opening = Self.enclosingScopeOpening(before: line - 1, in: lines) else { return nil }
            line = opening + 1
        }
        var depth = 0
        var opened = false
        for index in (line - 1)..<lines.count {
            let text = lines[index]
            // Declarations at depth 1 (the type's body): checked before this line's braces count.
            if opened && depth == 1 && text.containsBytes(field) && Self.declares(field, in: text) {
                return (index + 1, text.trimmingCharacters(in: .whitespaces))
            }
            // A property on the declaration's own line (`final class Child { var parent: Parent? }`).
            if index == line - 1 && Self.declaresInline(field, in: text) {
                return (index + 1, text.trimmingCharacters(in: .whitespaces))
            }
            var inString = false
            for byte in Self.code(of: text).utf8 {
                if byte == UInt8(ascii: "\"") { inString.toggle() }
                if inString { continue }
                if byte == UInt8(ascii: "{") {
                    depth += 1
                    opened = true
                } else if byte == UInt8(ascii: "}") {
                    depth -= 1
                    if opened && depth == 0 { return nil }
                }
            }
            if opened && depth == 0 { return nil }
        }
        return nil
    }

    /// `text` split at its line feeds, a carriage return before one dropped (as bytes: a split by
    /// characters was half the time a big dump spent on declarations).
    private static func lines(of text: String) -> [Substring] {
        let bytes = text.utf8
        var lines: [Substring] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            var end = index
            if end > start, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
            lines.append(text[start..<end])
            start = bytes.index(after: index)
        }
        lines.append(text[start...])
        return lines
    }

    /// The index of the line whose `{` opens the scope the line at `index` is in.
    private static func enclosingScopeOpening(before index: Int, in lines: [Substring]) -> Int? {
        var depth = 0
        for current in stride(from: index - 1, through: 0, by: -1) {
            for byte in code(of: lines[current]).utf8.reversed() {
                if byte == UInt8(ascii: "}") {
                    depth += 1
                } else if byte == UInt8(ascii: "{") {
                    if depth == 0 { return current }
                    depth -= 1
                }
            }
        }
        return nil
    }

    /// `text` without a trailing `//` comment.
    private static func code(of text: Substring) -> Substring {
        let bytes = text.utf8
        var afterSlash = false
        for index in bytes.indices {
            let isSlash = bytes[index] == UInt8(ascii: "/")
            if isSlash && afterSlash { return text[..<bytes.index(before: index)] }
            afterSlash = isSlash
        }
        return text
    }

    /// Whether `text` declares `field` with `var` or `let` (any modifiers before).
    static func declares(_ field: String, in text: Substring) -> Bool {
        let code = code(of: text)
        for keyword in ["var ", "let "] {
            var search = code.startIndex
            while let range = code.range(of: keyword, range: search..<code.endIndex) {
                search = range.upperBound
                if range.lowerBound != code.startIndex {
                    let before = code[code.index(before: range.lowerBound)]
                    guard before == " " || before == "\t" || before == ")" else { continue }
                }
                let rest = code[range.upperBound...].drop { $0 == " " }
                guard rest.hasPrefix(field) else { continue }
                let after = rest.dropFirst(field.count).first
                if after == nil || after == ":" || after == " " || after == "=" { return true }
            }
        }
        return false
    }

    /// For a one-line type: whether the part after its `{` declares `field`.
    private static func declaresInline(_ field: String, in text: Substring) -> Bool {
        guard let brace = text.firstIndex(of: "{") else { return false }
        return declares(field, in: text[text.index(after: brace)...])
    }
}
