import Synchronization

/// Where `@StrongRef` and `@WeakRef` storage is in its owner, by the key path the compiler hands
/// the wrapper.
///
/// A wrapper on a class's property reaches its storage through a key path, and the standard
/// library's generic key path projection looks up metadata every time (about a thousand
/// instructions an access, in a release build too: the owner is the user's type, so LeakGraph's
/// code for it is never specialised). A class's stored property is at one offset in every
/// instance, its subclasses' too, so the offset is found once, by projecting, and the storage then
/// reached by adding it to the owner's address.
///
/// Keyed by the key path object, which the table holds: its address cannot be reused by another
/// key path while it is a key. The runtime instantiates a key path once per place in the code
/// that makes it, when it has no generic context: a non-generic class's wrapper gets the same
/// object at every access. A generic class's gets a fresh one each time, so remembering it would
/// only evict others: a class whose wrapper's key path changed identity is marked, and its
/// wrappers are reached through the key path every time (as before this table). 256 places in
/// sets of two: a new key path goes first in its set, the one there moves second and the second
/// is forgotten, so two properties whose key paths fall in one set never take turns evicting each
/// other (direct-mapped, such a pair missed on every access).
///
/// Read without a lock: each place is one word, the key path's address over 16 and the offset,
/// loaded atomically. A word matching the reader's key path names that key path (held here, or
/// by the reader, so no other can have its address); writers take the lock.
enum WrapperStorageOffsets {
    private static let capacity = 256
    private static let ways = 2
    private static let offsetBits = 20

    /// What the lock guards: the key paths the words name, and what was remembered per property.
    private struct Table {
        /// The key paths themselves, held so that their addresses stay theirs. A key path is
        /// immutable (and only ever released here, never read): sharing it is safe, which
        /// `AnyKeyPath` does not declare.
        var keyPaths = [UncheckedSendable<AnyKeyPath>?](repeating: nil, count: WrapperStorageOffsets.capacity)
        /// The key path first remembered for each (class, offset).
        var firstKeyPath: [PropertyKey: ObjectIdentifier] = [:]
        /// Classes whose wrappers' key paths are not one object (generic classes).
        var unstable: Set<ObjectIdentifier> = []
    }

    private static let table = Locked(Table(), heldAcrossFork: true)
    private static let words = UncheckedSendable(
        {
            let words = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: capacity)
            for place in 0..<capacity { (words + place).initialize(to: Atomic(0)) }
            return words
        }())
    // UncheckedSendable: the words are atomics, allocated once and never freed.

    /// Finishes this type's lazy globals before a fork (see `beforeFork`).
    static func prepareForFork() {
        _ = table
        _ = words
    }

    #if DEBUG
        /// Lookups the table answered, in a debug build (the tests check that it does).
        static let answered = Atomic<Int>(0)
        /// Key paths forgotten to make room, in a debug build: a forgotten one is reached through
        /// its key path again, so the tests' count of answers allows for them.
        static let forgotten = Atomic<Int>(0)
    #endif

    /// The offset remembered for `keyPath`, if any. No lock.
    @inline(__always)
    static func offset(of keyPath: AnyKeyPath) -> Int? {
        let key = UInt(bitPattern: ObjectIdentifier(keyPath)) >> 4
        let first = firstPlace(of: key)
        for place in first..<first + ways {
            let word = words.value[place].load(ordering: .acquiring)
            if word >> offsetBits == key, word != 0 {
                #if DEBUG
                    answered.add(1, ordering: .relaxed)
                #endif
                return Int(word & (1 << offsetBits - 1))
            }
        }
        return nil
    }

    /// Remembers that `keyPath`'s storage is `offset` bytes into instances of `owner`, unless
    /// `owner`'s wrappers get a fresh key path at every access.
    static func remember(_ offset: Int, for keyPath: AnyKeyPath, in owner: AnyClass) {
        let identifier = ObjectIdentifier(keyPath)
        let key = UInt(bitPattern: identifier) >> 4
        // Addresses up to 2^48 and offsets below 2^20 fit in one word; anything else (not met on
        // today's 64-bit systems) is reached through its key path.
        guard offset > 0, offset < 1 << offsetBits, key < 1 << (UInt.bitWidth - offsetBits) else { return }
        let property = PropertyKey(type: ObjectIdentifier(owner), offset: offset)
        let first = firstPlace(of: key)
        let forgotten: UncheckedSendable<AnyKeyPath>? = table.withLock { table in
            if table.unstable.contains(property.type) { return nil }
            if let remembered = table.firstKeyPath[property], remembered != identifier {
                table.unstable.insert(property.type)
                return nil
            }
            table.firstKeyPath[property] = identifier
            // Already here (two threads missed it at once): nothing to do.
            if (first..<first + ways).contains(where: { table.keyPaths[$0]?.value === keyPath }) { return nil }
            if table.keyPaths[first] == nil {
                table.keyPaths[first] = UncheckedSendable(keyPath)
                words.value[first].store(key << offsetBits | UInt(offset), ordering: .releasing)
                return nil
            }
            // The first place's key path moves second, and the second's is forgotten. Each key
            // path is held before a word names it, and released only after (unlocked), so a
            // word always names a key path that is alive: a reader matching it holds it anyway.
            let forgotten = table.keyPaths[first + 1]
            table.keyPaths[first + 1] = table.keyPaths[first]
            table.keyPaths[first] = UncheckedSendable(keyPath)
            let moved = words.value[first].load(ordering: .relaxed)
            words.value[first + 1].store(moved, ordering: .releasing)
            words.value[first].store(key << offsetBits | UInt(offset), ordering: .releasing)
            return forgotten
        }
        #if DEBUG
            if forgotten != nil { self.forgotten.add(1, ordering: .relaxed) }
        #endif
        _ = forgotten  // released after unlocking
    }

    /// Whether `owner`'s wrappers are reached through their key paths every time.
    static func isReachedByKeyPath(_ owner: AnyClass) -> Bool {
        table.withLock { $0.unstable.contains(ObjectIdentifier(owner)) }
    }

    /// The first of the two places `key` may be in: Fibonacci hashing, whose top bits mix every
    /// bit of the address (key paths are allocated close together, so their low bits repeat).
    @inline(__always)
    private static func firstPlace(of key: UInt) -> Int {
        let sets = UInt64(capacity / ways)
        let set = (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - sets.trailingZeroBitCount)
        return Int(truncatingIfNeeded: set) * ways
    }
}
