/// Where a stored property is declared: the line a fix changes (`var parent: Parent?` →
/// `weak var parent`), as opposed to where its object was allocated.
public struct FieldDeclaration: Sendable, Hashable, Codable {
    /// The type whose objects hold the reference, as the graph names it: `Child`.
    public var type: String
    /// The property: `parent` (a property wrapper's storage `_name` is `name`).
    public var field: String
    /// The source file, as reports show paths (relative to its package).
    public var file: String
    /// The declaration's line.
    public var line: Int
    /// The declaration as written, trimmed: `var parent: Parent?`.
    public var text: String
    /// Whether the file is a fetched dependency's (a package manager's checkout), which the user
    /// cannot change: a fix is then never made there. Nil when not known (dumps written before
    /// it was recorded), taken as false.
    public var isInDependency: Bool?

    /// Creates a declaration.
    public init(type: String, field: String, file: String, line: Int, text: String, isInDependency: Bool? = nil) {
        self.type = type
        self.field = field
        self.file = file
        self.line = line
        self.text = text
        self.isInDependency = isInDependency
    }

    /// The name of the dependency that declares it (`swift-nio` for a checkout's
    /// `swift-nio/Sources/NIOCore/ChannelPipeline.swift`), or nil when the user's own code does.
    var dependencyName: String? {
        guard isInDependency == true else { return nil }
        return file.split(separator: "/").first.map(String.init) ?? file
    }

    /// The storage the compiler gives a `lazy var` (`$__lazy_storage_$_storage` for `lazy var
    /// storage`), as reflection names it.
    static let lazyStoragePrefix = "$__lazy_storage_$_"

    /// The property an edge label names: its leading identifier (`items[0]` → `items`), less a
    /// property wrapper's underscore or a `lazy var`'s storage prefix; nil for labels that name no
    /// stored property (`capture`).
    public static func fieldName(ofLabel label: String) -> String? {
        guard label != "capture", label != "self" else { return nil }
        let unprefixed =
            label.hasPrefix(lazyStoragePrefix) ? label.dropFirst(lazyStoragePrefix.count) : Substring(label)
        var name = Substring(unprefixed.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        guard !name.isEmpty, !(name.first?.isNumber ?? true) else { return nil }
        if name.hasPrefix("_") && name.count > 1 { name = name.dropFirst() }
        return String(name)
    }
}
