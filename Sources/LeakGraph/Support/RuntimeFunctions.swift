// Entry points of the Swift runtime that the standard library does not wrap. They are exported C
// symbols of libswiftCore on every platform and have been stable since Swift 5.

import CLeakGraphSupport

/// The strong retain count of a live heap object (a lower bound on its owners; the runtime does
/// not count references it has optimised away).
@_silgen_name("swift_retainCount")
func runtimeRetainCount(_ object: UnsafeMutableRawPointer) -> Int

/// Retains `object` unless it has already begun deinitialising. Lets a snapshot take hold of an
/// object that another thread may be releasing right now without resurrecting it.
@inline(__always)
func runtimeTryRetain(_ object: UnsafeMutableRawPointer) -> Bool {
    lg_try_retain(object) != 0
}

/// Demangles a Swift symbol; returns a malloc'd C string or nil.
@_silgen_name("swift_demangle")
func runtimeDemangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: UInt,
    _ outputBuffer: UnsafeMutablePointer<CChar>?, _ outputBufferSize: UnsafeMutablePointer<UInt>?,
    _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

/// Whether `object` has begun deinitialising.
@inline(__always)
func runtimeIsDeallocating(_ object: UnsafeMutableRawPointer) -> Bool {
    lg_is_deallocating(object) != 0
}

@_silgen_name("swift_weakRetainCount")
private func runtimeWeakRetainCount(_ object: UnsafeMutableRawPointer) -> Int

@_silgen_name("swift_unownedRetainCount")
private func runtimeUnownedRetainCount(_ object: UnsafeMutableRawPointer) -> Int

/// The `weak` and `unowned` references to a live heap object that the runtime counts. (Each
/// count starts at one for the object itself: one `weak var` pointing at it makes the weak
/// count 2.) Lets the lifecycle analysis know that code the graph does not show can still reach
/// an object without keeping it alive.
///
/// Read from the inline reference-count word when the object has no side table (then it has no
/// weak references, and bits 1–31 hold the unowned count): two runtime calls per object made a
/// snapshot of 100,000 objects a tenth slower.
@inline(__always)
func inlineWeakAndUnownedReferences(_ object: UnsafeRawPointer) -> Int? {
    #if _pointerBitWidth(_64)
        let bits = object.load(fromByteOffset: 8, as: UInt.self)
        if bits >> 63 == 0 { return max(0, Int((bits >> 1) & 0x7FFF_FFFF) - 1) }
    #endif
    return nil
}

/// ``inlineWeakAndUnownedReferences(_:)``, else from the side table (the object must be held).
@inline(__always)
func runtimeWeakAndUnownedReferences(_ object: UnsafeMutableRawPointer) -> Int {
    if let inline = inlineWeakAndUnownedReferences(object) { return inline }
    return max(0, runtimeWeakRetainCount(object) - 1) + max(0, runtimeUnownedRetainCount(object) - 1)
}
