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
/// key path while it is a key. The runtime hands every use of one property's key path the same
/// object, so a program meets about as many as it has wrapped properties in use; 256 places, a
/// colliding key path replacing the one there.
enum WrapperStorageOffsets {
    private struct Table {
        var identifiers = [ObjectIdentifier?](repeating: nil, count: WrapperStorageOffsets.capacity)
        var offsets = [Int](repeating: 0, count: WrapperStorageOffsets.capacity)
        /// The key paths themselves, held so that their identifiers stay theirs. A key path is
        /// immutable (and only ever released here, never read): sharing it is safe, which
        /// `AnyKeyPath` does not declare.
        var keyPaths = [UncheckedSendable<AnyKeyPath>?](repeating: nil, count: WrapperStorageOffsets.capacity)
    }

    private static let capacity = 256
    private static let table = Locked(Table(), heldAcrossFork: true)

    /// The offset remembered for `keyPath`, if any.
    static func offset(of keyPath: AnyKeyPath) -> Int? {
        let identifier = ObjectIdentifier(keyPath)
        let place = self.place(of: identifier)
        return table.withLock { $0.identifiers[place] == identifier ? $0.offsets[place] : nil }
    }

    /// Remembers that `keyPath`'s storage is `offset` bytes into its owner.
    static func remember(_ offset: Int, for keyPath: AnyKeyPath) {
        let identifier = ObjectIdentifier(keyPath)
        let place = self.place(of: identifier)
        let replaced: UncheckedSendable<AnyKeyPath>? = table.withLock { table in
            let replaced = table.keyPaths[place]
            table.identifiers[place] = identifier
            table.offsets[place] = offset
            table.keyPaths[place] = UncheckedSendable(keyPath)
            return replaced
        }
        _ = replaced  // released after unlocking
    }

    private static func place(of identifier: ObjectIdentifier) -> Int {
        // Objects are 16-byte aligned: the bits above the alignment, mixed.
        Int(truncatingIfNeeded: ((UInt(bitPattern: identifier) >> 4) &* 0x9E37_79B9) >> 8) & (capacity - 1)
    }
}
