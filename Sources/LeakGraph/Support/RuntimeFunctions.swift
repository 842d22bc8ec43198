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
