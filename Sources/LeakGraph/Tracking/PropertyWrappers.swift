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
        get { withStorage(in: owner, storageKeyPath) { $0.pointee.storage } }
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
        get { withStorage(in: owner, storageKeyPath) { $0.pointee.storage } }
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
        // Set from the closure rather than returned as a tuple: in code generic over the user's
        // types, a tuple's metadata is looked up at run time.
        var old: Target?
        var label: EdgeLabel?
        withStorage(in: owner, storageKeyPath) { wrapper in
            old = wrapper.pointee.storage
            wrapper.pointee.storage = newValue
            if let known = wrapper.pointee.label {
                label = known
            } else {
                // Named once per property (by class and offset), here from the wrapper's address.
                let offset = UnsafeRawPointer(wrapper) - UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
                label = propertyLabel(of: type(of: owner), offset: offset)
                wrapper.pointee.label = label
            }
        }
        guard old !== newValue, let label else { return }
        reportEdge(owner: owner, old: old, new: newValue, kind: edgeKind, label: label)
    }
}

extension TrackedReferenceStorage {
    /// Runs `body` with the wrapper's storage in `owner`: at the offset remembered for the key
    /// path (``WrapperStorageOffsets``), or reached through the key path the first time, its
    /// offset then remembered. One lookup instead of a key path projection for every access.
    static func withStorage<Owner: TrackedObject, Result>(
        in owner: Owner, _ storageKeyPath: ReferenceWritableKeyPath<Owner, Self>,
        _ body: (UnsafeMutablePointer<Self>) -> Result
    ) -> Result {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(owner).toOpaque())
        if let offset = WrapperStorageOffsets.offset(of: storageKeyPath) {
            return body((base + offset).assumingMemoryBound(to: Self.self))
        }
        return withUnsafeMutablePointer(to: &owner[keyPath: storageKeyPath]) { wrapper in
            // A stored property's storage is inside the instance, past its header (two words).
            let offset = UnsafeMutableRawPointer(wrapper) - base
            if offset >= 2 * MemoryLayout<Int>.size {
                WrapperStorageOffsets.remember(offset, for: storageKeyPath, in: type(of: owner))
            }
            return body(wrapper)
        }
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

/// Property labels by (class, storage offset): named and interned once per property, not once
/// per instance.
private let propertyLabels = Locked<[PropertyKey: EdgeLabel]>([:], heldAcrossFork: true)

/// Finishes the wrappers' lazy globals before a fork (see `beforeFork`): one another thread was
/// initialising at the fork would never finish in the child.
func preparePropertyWrappersForFork() {
    _ = propertyLabels
    WrapperStorageOffsets.prepareForFork()
}

/// A wrapped property: its class and its storage's offset in the class's instances.
struct PropertyKey: Hashable {
    let type: ObjectIdentifier
    let offset: Int
}

/// The label of the wrapped property whose storage is `offset` bytes into instances of `owner`:
/// its name, from the class's field list (key paths do not print names on Linux).
private func propertyLabel(of owner: TrackedObject.Type, offset: Int) -> EdgeLabel {
    let key = PropertyKey(type: ObjectIdentifier(owner), offset: offset)
    if let known = propertyLabels.withLock({ $0[key] }) { return known }
    var name = "ref"
    if offset > 0 {
        _ = _forEachField(of: owner, options: _EachFieldOptions(rawValue: 1)) { fieldName, fieldOffset, _, _ in
            guard fieldOffset == offset else { return true }
            let text = String(cString: fieldName)
            name = text.hasPrefix("_") ? String(text.dropFirst()) : text
            return false
        }
    }
    let label = EdgeLabel(name)
    propertyLabels.withLock { $0[key] = label }
    return label
}
