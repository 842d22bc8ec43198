import CLeakGraphSupport

/// State guarded by an `lg_mutex` (CLeakGraphSupport's mutex.c).
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls in the uninstrumented
/// standard library, so the thread sanitizer reports every access it guards as a race. Not a
/// pthread mutex either, any more: its lock and unlock cost ~55 instructions together, and the
/// registry locks about fifty times per subscription lifecycle. `lg_mutex` is a futex word locked
/// and unlocked with one atomic instruction each, in instrumented C, so the sanitizer sees the
/// ordering.
///
/// As everywhere in LeakGraph: never release an object or a closure inside `withLock`; return
/// it and let it go after unlocking.
package struct Locked<State> {
    // One allocation holding the mutex and the state, where there were three (an object, the
    // state, the mutex): about 400 instructions less for every lock made and freed, and a
    // subscription makes several. The storage class is not generic: its users are generic types
    // in other modules, whose unspecialised code would look up a generic storage class's
    // metadata (~500 instructions) for every lock made. The state is reached through a pointer,
    // never through a class's stored `var`, whose inout access would pay a dynamic exclusivity
    // check (~100 instructions with its thread-local lookup): the mutex already guarantees
    // exclusivity.
    private let storage: LockStorage

    /// - Parameter heldAcrossFork: For a lock that lives as long as the process and that a forked
    ///   child may need (the registry's, the caches'): held by the forking thread across every
    ///   `fork()`, so that a child never inherits it locked by a thread that does not exist there.
    package init(_ state: State, heldAcrossFork: Bool = false) {
        storage = LockStorage.make(holding: state)
        if heldAcrossFork {
            storage.withUnsafeMutablePointerToHeader { header in
                // The mutex's own address in the buffer (stable: the buffer never moves).
                let offset = MemoryLayout<LockHeader>.offset(of: \LockHeader.mutex)!
                _ = lg_fork_protect((UnsafeMutableRawPointer(header) + offset).assumingMemoryBound(to: lg_mutex.self))
            }
        }
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { header, tail in
            lg_mutex_lock(&header.pointee.mutex)
            defer { lg_mutex_unlock(&header.pointee.mutex) }
            return try body(&LockStorage.state(in: tail, as: State.self).pointee)
        }
    }
}

/// The header of a ``LockStorage``: the mutex, and the type of the state in the tail (its
/// deinitialiser needs it).
struct LockHeader {
    var mutex = lg_mutex()
    let stateType: Any.Type
}

/// The allocation behind a ``Locked``: the mutex in the header (a stable address, as `lg_mutex`
/// requires), the state in the tail bytes.
///
/// Internal, not private: discovery reads the state of the locks other libraries' objects keep
/// (a LeakGraphRx subject's observers), since whole-process snapshots leave LeakGraph's own
/// objects out of the graph but must still see what their state holds.
final class LockStorage: ManagedBuffer<LockHeader, UInt8> {
    /// Where an instance keeps its state's type (a metatype word) and where the state starts,
    /// from the instance's address: the header after the object's two words, the tail after the
    /// header, the state at its own alignment in the tail (an object is 16-byte aligned).
    static let stateTypeOffset = 16 + MemoryLayout<LockHeader>.offset(of: \LockHeader.stateType)!
    static let tailOffset = 16 + MemoryLayout<LockHeader>.size

    /// The metadata of this class (an address: `Sendable`).
    static let metadataAddress = UInt(
        bitPattern: unsafeBitCast(LockStorage.self as AnyClass, to: UnsafeRawPointer.self))

    static func make<State>(holding initial: State) -> LockStorage {
        // Room for the state at its alignment wherever the tail starts.
        let room = MemoryLayout<State>.size + MemoryLayout<State>.alignment - 1
        let buffer = create(minimumCapacity: room) { _ in LockHeader(stateType: State.self) }
        buffer.withUnsafeMutablePointers { header, tail in
            lg_mutex_init(&header.pointee.mutex)
            state(in: tail, as: State.self).initialize(to: initial)
        }
        // `create` makes an instance of the class it is called on: this one.
        return unsafeDowncast(buffer, to: LockStorage.self)
    }

    /// Where the state is in the tail bytes.
    @inline(__always)
    static func state<State>(in tail: UnsafeMutablePointer<UInt8>, as _: State.Type) -> UnsafeMutablePointer<State> {
        UnsafeMutableRawPointer(tail).alignedUp(for: State.self).assumingMemoryBound(to: State.self)
    }

    deinit {
        withUnsafeMutablePointers { header, tail in
            lg_mutex_destroy(&header.pointee.mutex)
            func destroy<State>(_ type: State.Type) {
                LockStorage.state(in: tail, as: type).deinitialize(count: 1)
            }
            _openExistential(header.pointee.stateType, do: destroy)
        }
        // The header itself is destroyed by `ManagedBuffer`.
    }
}

/// Sendable only when its state is: the lock serialises access to the state, but handing a
/// non-`Sendable` value to another thread through it would still share that value unchecked.
/// (@unchecked because its storage, a class with mutable state, is not `Sendable`; the mutex
/// makes it safe.)
extension Locked: @unchecked Sendable where State: Sendable {}
