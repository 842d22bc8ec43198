/// A growable table of plain records addressed by position — the registry's object and edge
/// slots and their free lists —, mutated in place.
///
/// Not an `Array`: every mutation of an array's element first asks the runtime whether its buffer
/// is shared (`swift_isUniquelyReferenced`, some fifteen instructions with the caller's part),
/// and a subscription's lifecycle made about forty such mutations of the registry's arrays, which
/// are never shared. A table is never shared either: its one owner, ``RegistryState``, is only
/// reached `inout` through the registry's lock, never copied. Copies would share the storage (it
/// is a pointer), so the table is not to be copied out of the state; snapshots read its records,
/// one by one, under the lock.
///
/// Its storage lives as long as the table's owner: the registry, which lives as long as the
/// process (`Registry.shared`). Positions are checked against the count, as an array's are.
struct SlotTable<Element: BitwiseCopyable> {
    private var base: UnsafeMutablePointer<Element>?
    /// Records in the table.
    private(set) var count = 0
    /// Records the storage has room for before it grows.
    private(set) var capacity = 0

    init() { base = nil }

    /// The record at `position`, read and written in place.
    subscript(position: Int) -> Element {
        @inline(__always)
        unsafeAddress {
            precondition(position >= 0 && position < count, "registry slot out of range")
            return UnsafePointer(base.unsafelyUnwrapped + position)
        }
        @inline(__always)
        unsafeMutableAddress {
            precondition(position >= 0 && position < count, "registry slot out of range")
            return base.unsafelyUnwrapped + position
        }
    }

    var isEmpty: Bool { count == 0 }

    /// Adds `element` at the end, growing the storage (doubling) when it is full.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// Removes and returns the last record (the table must not be empty).
    @inline(__always)
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast of an empty registry table")
        count -= 1
        return base.unsafelyUnwrapped[count]
    }

    /// The records as one buffer, for an operation that touches several of them: valid until
    /// the next `append` (which may move the storage).
    var mutableBuffer: UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: base, count: count)
    }

    @inline(never)
    private mutating func grow() {
        let newCapacity = Swift.max(16, capacity * 2)
        let storage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            storage.initialize(from: base, count: count)
            base.deallocate()
        }
        base = storage
        capacity = newCapacity
    }
}

extension SlotTable: RandomAccessCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { count }
}

// @unchecked: the storage is a pointer, which is not `Sendable`. Safe because a table is reached
// only through its owner's lock (the registry's state, handed to the lock once and only ever
// reached `inout` under it), and never copied: no two threads can reach one storage unguarded.
extension SlotTable: @unchecked Sendable {}
