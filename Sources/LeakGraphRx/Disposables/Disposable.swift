import LeakGraph

/// A resource that can be released: a subscription, a timer, a connection.
///
/// `dispose()` is idempotent and safe to call from any thread.
public protocol Disposable {
    /// Releases the resource. Calling it again does nothing.
    func dispose()
}

/// A disposable that can tell whether it was disposed.
public protocol Cancelable: Disposable {
    /// Whether ``Disposable/dispose()`` was called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// The disposable as a tracked object, when it is one (used to report edges).
    @inline(__always)
    var trackedObject: TrackedObject? { asTrackedObject(self) }
}

/// `value as? TrackedObject`, for a value whose static type is its dynamic type (a generic
/// parameter, or `Self` of an opened existential), at the cost of a metatype check: `as?` from
/// an opaque existential or a generic value goes through `swift_dynamicCast`'s general path
/// (≈450 instructions), and subscribing does it several times per sink.
///
/// Exact because `TrackedObject` is a root class: a value of a class type that does not
/// inherit from it cannot be an instance of a subclass of it.
@inline(__always)
func asTrackedObject<Value>(_ value: Value) -> TrackedObject? {
    guard isTrackedObjectType(Value.self) else { return nil }
    // The reference reinterpreted: `unsafeDowncast` needs an `AnyObject`, and boxing a generic
    // value into one costs a dynamic cast, which is what this function avoids. (Not
    // `withUnsafePointer(to:)`, whose unspecialised closure call cost ~40 instructions a use.)
    let reference = unsafeBitCast(value, to: UnsafeRawPointer.self)
    return Unmanaged<TrackedObject>.fromOpaque(reference).takeUnretainedValue()
}

/// `type is TrackedObject.Type`, read from the type's metadata: a class's metadata (kind 0, or an
/// isa pointer above the last kind, 0x7FF, on Apple platforms) and then its superclasses, one
/// word after the start, until `TrackedObject`'s or the root. The runtime's metatype cast
/// (`swift_dynamicCastMetatype`, ~45 instructions and a call) did the same walk, generally, for
/// every edge a sink or a disposer declares.
@inline(__always)
package func isTrackedObjectType<Value>(_: Value.Type) -> Bool {
    #if _ptrauth(_arm64e)
        // There the superclass field is a signed pointer: the runtime's cast follows it.
        return Value.self is TrackedObject.Type
    #else
        return isTrackedObjectClass(Value.self)
    #endif
}

/// The walk of ``isTrackedObjectType(_:)`` where metadata pointers are plain.
@inline(__always)
private func isTrackedObjectClass(_ type: Any.Type) -> Bool {
    var metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    let kind = metadata.load(as: UInt.self)
    guard kind == 0 || kind > 0x7FF else { return false }
    let target = unsafeBitCast(TrackedObject.self as AnyClass, to: UnsafeRawPointer.self)
    // Bounded: no class hierarchy is this deep, and a bound costs nothing.
    for _ in 0..<256 {
        if metadata == target { return true }
        guard let superclass = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
        else { return false }
        metadata = superclass
    }
    return false
}
