/// A reference found at snapshot time, before it is merged with the declared edges.
struct DiscoveredReference {
    let from: Int
    let toAddress: UInt
    var kind: EdgeKind
    let label: String
    let origin: EdgeOrigin
    let closureAddress: UInt?
}

/// Walks the stored properties of live tracked objects and reports the ones that point at other
/// live tracked objects, labelled with their property path (`peer`, `items[2]`, `state.observer`).
///
/// Field metadata decides strength before anything is read: `weak` fields are never read (their
/// storage is not a plain pointer) and `unowned` fields are compared as raw words, never loaded,
/// so a dead `unowned` target cannot trap. Class references that are not tracked are not
/// followed. Closures in fields are handed to the ``ClosureScanner``.
struct ReferenceDiscovery {
    let scanner: ClosureScanner
    let isLive: (UInt) -> Bool
    let scanClosures: Bool
    var found: [DiscoveredReference] = []

    /// Longest collection walked per field; the rest is skipped.
    static let elementLimit = 10_000

    init(scanner: ClosureScanner, scanClosures: Bool, isLive: @escaping (UInt) -> Bool) {
        self.scanner = scanner
        self.scanClosures = scanClosures
        self.isLive = isLive
    }

    mutating func discover(in object: AnyObject, index: Int) {
        let layout = FieldLayout.of(type(of: object))
        guard !layout.fields.isEmpty else { return }
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        walk(layout, at: base, path: "", from: index, unknown: !layout.ownershipKnown, depth: 0)
    }

    private mutating func walk(
        _ layout: FieldLayout, at base: UnsafeRawPointer, path: String, from: Int, unknown: Bool, depth: Int
    ) {
        for field in layout.fields {
            let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
            let pointer = base + field.offset
            switch field.action {
            case .reference:
                let word = pointer.load(as: UInt.self)
                if word != 0 && isLive(word) {
                    add(from: from, to: word, kind: unknown ? .unknown : .strong, label: fieldPath, origin: .reflected)
                }
            case .unownedReference:
                let word = pointer.load(as: UInt.self)
                if word != 0 && isLive(word) {
                    add(from: from, to: word, kind: .unowned, label: fieldPath, origin: .reflected)
                }
            case .skipWeak:
                continue
            case .closure:
                scanClosure(
                    code: pointer.load(as: UInt.self), context: pointer.load(fromByteOffset: 8, as: UInt.self),
                    from: from)
            case .inline(let nested):
                walk(
                    nested, at: pointer, path: fieldPath, from: from, unknown: unknown || !nested.ownershipKnown,
                    depth: depth + 1)
            case .value(let box):
                let value = loadValue(of: box.type, from: pointer)
                visit(value, path: fieldPath, from: from, depth: depth + 1)
            }
        }
    }

    private mutating func scanClosure(code: UInt, context: UInt, from: Int) {
        guard scanClosures else { return }
        for capture in scanner.captures(code: code, context: context) {
            add(
                from: from, to: capture.address, kind: capture.strengthUnknown ? .unknown : .strong, label: "capture",
                origin: .captured, closureAddress: capture.code)
        }
    }

    private mutating func visit(_ value: Any, path: String, from: Int, depth: Int) {
        guard depth < 12 else { return }
        let valueType = type(of: value)
        switch MetadataKind(of: valueType) {
        case .classInstance:
            let word = UInt(bitPattern: Unmanaged.passUnretained(value as AnyObject).toOpaque())
            if isLive(word) { add(from: from, to: word, kind: .strong, label: path, origin: .reflected) }
            return
        case .function:
            let words = withValueBytes(value) { ($0.load(as: UInt.self), $0.load(fromByteOffset: 8, as: UInt.self)) }
            scanClosure(code: words.0, context: words.1, from: from)
            return
        case .structure, .tuple:
            if !(valueType is any Collection.Type) {
                let layout = FieldLayout.of(valueType)
                if layout.fields.isEmpty { return }
                withValueBytes(value) { pointer in
                    walk(layout, at: pointer, path: path, from: from, unknown: !layout.ownershipKnown, depth: depth)
                }
                return
            }
        case .other:
            return
        case .optional, .enumeration, .existential:
            break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            if let child = mirror.children.first { visit(child.value, path: path, from: from, depth: depth + 1) }
        case .collection, .set:
            for (index, child) in mirror.children.prefix(Self.elementLimit).enumerated() {
                visit(child.value, path: "\(path)[\(index)]", from: from, depth: depth + 1)
            }
        case .dictionary:
            for child in mirror.children.prefix(Self.elementLimit) {
                let pair = Array(Mirror(reflecting: child.value).children)
                guard pair.count == 2 else { continue }
                visit(pair[1].value, path: "\(path)[\(keyDescription(pair[0].value))]", from: from, depth: depth + 1)
            }
        default:
            for child in mirror.children.prefix(Self.elementLimit) {
                let name = child.label ?? "?"
                visit(child.value, path: path.isEmpty ? name : "\(path).\(name)", from: from, depth: depth + 1)
            }
        }
    }

    private func keyDescription(_ key: Any) -> String {
        if let text = key as? String { return "\"\(text.prefix(40))\"" }
        if MetadataKind(of: type(of: key)) == .classInstance { return String(describing: type(of: key)) }
        return String(String(describing: key).prefix(40))
    }

    private mutating func add(
        from: Int, to: UInt, kind: EdgeKind, label: String, origin: EdgeOrigin, closureAddress: UInt? = nil
    ) {
        found.append(
            DiscoveredReference(
                from: from, toAddress: to, kind: kind, label: label, origin: origin, closureAddress: closureAddress))
    }
}

/// Copies the value of type `type` stored at `pointer` into an `Any` (retaining what it holds).
func loadValue(of type: Any.Type, from pointer: UnsafeRawPointer) -> Any {
    func load<T>(_: T.Type) -> Any { pointer.assumingMemoryBound(to: T.self).pointee }
    return _openExistential(type, do: load)
}

/// Calls `body` with a pointer to the bytes of the value inside `value`.
func withValueBytes<R>(_ value: Any, _ body: (UnsafeRawPointer) -> R) -> R {
    func open<T>(_ opened: T) -> R { withUnsafePointer(to: opened) { body(UnsafeRawPointer($0)) } }
    return _openExistential(value, do: open)
}
