@_spi(Reflection) import Swift

/// A stored reference of a ``TrackedObject`` subclass that reports itself as a strong edge.
///
/// Every assignment moves the edge; assigning `nil` removes it. The edge's label is the
/// property's name unless one is given.
///
/// ```swift
/// final class Node: TrackedObject {
///     @StrongRef var next: Node?
///     @StrongRef("owner of") var owner: Node?
/// }
/// ```
@propertyWrapper
public struct StrongRef<Target: AnyObject>: TrackedReferenceStorage {
    static var edgeKind: EdgeKind { .strong }
    var storage: Target?
    var label: EdgeLabel?

    /// A strong reference labelled with the property name.
    public init(wrappedValue: Target? = nil) {
        storage = wrappedValue
    }

    /// A strong reference with an explicit edge label.
    public init(wrappedValue: Target? = nil, _ label: String) {
        storage = wrappedValue
        self.label = EdgeLabel(label)
    }

    /// Only usable inside a `TrackedObject` subclass.
    @available(*, unavailable, message: "@StrongRef can only be used on properties of TrackedObject subclasses")
    public var wrappedValue: Target? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reports the edge on every assignment.
    public static subscript<Owner: TrackedObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Target?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Target? {
        get { owner[keyPath: storageKeyPath].storage }
        set { assign(newValue, in: owner, storage: storageKeyPath) }
    }
}

/// A `weak` reference of a ``TrackedObject`` subclass that reports itself as a weak edge.
///
/// ```swift
/// final class Child: TrackedObject {
///     @WeakRef var parent: Parent?
/// }
/// ```
@propertyWrapper
public struct WeakRef<Target: AnyObject>: TrackedReferenceStorage {
    static var edgeKind: EdgeKind { .weak }
    weak var storage: Target?
    var label: EdgeLabel?

    /// A weak reference labelled with the property name.
    public init(wrappedValue: Target? = nil) {
        storage = wrappedValue
    }

    /// A weak reference with an explicit edge label.
    public init(wrappedValue: Target? = nil, _ label: String) {
        storage = wrappedValue
        self.label = EdgeLabel(label)
    }

    /// Only usable inside a `TrackedObject` subclass.
    @available(*, unavailable, message: "@WeakRef can only be used on properties of TrackedObject subclasses")
    public var wrappedValue: Target? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reports the edge on every assignment.
    public static subscript<Owner: TrackedObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Target?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Target? {
        get { owner[keyPath: storageKeyPath].storage }
        set { assign(newValue, in: owner, storage: storageKeyPath) }
    }
}

/// What both wrappers keep, and the one implementation of their assignment: the target (held
/// strongly or weakly) and the edge label, resolved from the property name on first use.
protocol TrackedReferenceStorage {
    associatedtype Target: AnyObject
    /// The kind of edge the wrapper reports.
    static var edgeKind: EdgeKind { get }
    /// Named `storage` in both wrappers: discovery labels references found inside a wrapper
    /// with this field name (`_peer.storage`), and those labels are part of cycle signatures.
    var storage: Target? { get set }
    var label: EdgeLabel? { get set }
}

extension TrackedReferenceStorage {
    /// Stores `newValue` and moves the edge from the old target to the new one.
    static func assign<Owner: TrackedObject>(
        _ newValue: Target?, in owner: Owner, storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) {
        let old = owner[keyPath: storageKeyPath].storage
        let label = label(owner, storageKeyPath)
        owner[keyPath: storageKeyPath].storage = newValue
        guard old !== newValue else { return }
        reportEdge(owner: owner, old: old, new: newValue, kind: edgeKind, label: label)
    }

    private static func label<Owner: TrackedObject>(
        _ owner: Owner, _ storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> EdgeLabel {
        if let label = owner[keyPath: storageKeyPath].label { return label }
        let resolved = EdgeLabel(propertyName(of: owner, storage: storageKeyPath))
        owner[keyPath: storageKeyPath].label = resolved
        return resolved
    }
}

private func reportEdge(owner: TrackedObject, old: AnyObject?, new: AnyObject?, kind: EdgeKind, label: EdgeLabel) {
    guard owner.isTracked else { return }
    let registry = Registry.shared
    let oldSlot = old.flatMap { registry.slot(of: $0, trackIfNeeded: false) }
    let newSlot = new.flatMap { registry.slot(of: $0, trackIfNeeded: true) }
    guard oldSlot != nil || newSlot != nil else { return }
    registry.replaceEdge(from: owner.leakGraphSlot, oldTarget: oldSlot, newTarget: newSlot, kind: kind, label: label.id)
}

/// Property names by (class, storage offset): found once per property, not once per instance.
private let propertyNames = Locked<[PropertyKey: String]>([:], heldAcrossFork: true)

private struct PropertyKey: Hashable {
    let type: ObjectIdentifier
    let offset: Int
}

/// The name of the wrapped property whose storage `storage` is: found from the storage's byte
/// offset in the instance and the class's field list (key paths do not print names on Linux).
private func propertyName<Owner: TrackedObject, Storage>(
    of owner: Owner, storage: ReferenceWritableKeyPath<Owner, Storage>
) -> String {
    let base = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    let address = withUnsafeMutablePointer(to: &owner[keyPath: storage]) { UInt(bitPattern: $0) }
    guard address > base else { return "ref" }
    let offset = Int(address - base)
    let key = PropertyKey(type: ObjectIdentifier(type(of: owner)), offset: offset)
    if let known = propertyNames.withLock({ $0[key] }) { return known }
    var name = "ref"
    _ = _forEachField(of: type(of: owner), options: _EachFieldOptions(rawValue: 1)) { fieldName, fieldOffset, _, _ in
        guard fieldOffset == offset else { return true }
        let text = String(cString: fieldName)
        name = text.hasPrefix("_") ? String(text.dropFirst()) : text
        return false
    }
    let found = name
    propertyNames.withLock { $0[key] = found }
    return found
}
