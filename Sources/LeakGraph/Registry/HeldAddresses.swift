import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Array where Element == UInt64 {
    /// Whether this ascending array contains `value` (binary search).
    func containsSorted(_ value: UInt64) -> Bool {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < count && self[low] == value
    }
}

/// Where each object of a snapshot is among its held objects, by address: what the walk asks of
/// every reference it reads.
///
/// A `TrackedObject` keeps its registry slot in its first stored property, so a strong
/// reference to one (a live object: the walk may read it, as it reads an untracked object's
/// class) is found with a read of the object's first words and two array lookups, near the
/// object the walk just read; a hash lookup of a million random addresses missed the cache each
/// time. Everything else (other references, objects that are not `TrackedObject`s: external
/// objects, process-wide records) goes through the hashed index, made when first needed.
final class HeldAddresses {
    private let addresses: [UInt64]
    /// Registry slot → held position (-1: not held).
    private let positionOfSlot: [Int32]
    /// Whether every held object is a `TrackedObject` registration: then a reference that is not
    /// to one held through its slot is to no held object at all.
    private let allTrackedObjects: Bool
    /// Whether objects' memory may be read in place (not while other threads run unheld, as in
    /// whole-process snapshots: those read through copies).
    private let readsObjects: Bool
    /// Where metadata may be read (a class is told from a box or a context by it).
    private let map: MemoryMap
    private let makeIndex: () -> FlatIndex
    private var index: FlatIndex?
    /// Class metadata → whether it is `TrackedObject` or a subclass (the last answer first).
    private var trackedClasses: [UInt: Bool] = [:]
    private var lastClass: UInt = 0
    private var lastClassIsTracked = false
    /// Where `TrackedObject.leakGraphSlot` is in an instance: after the 16-byte header of a
    /// native Swift object, the root class's one stored property. Checked on a held object
    /// before it is relied on (nil: not as expected, every lookup is hashed).
    static let slotOffset = 16

    init(
        addresses: [UInt64], slots: [Int32], allTrackedObjects: Bool, readsObjects: Bool, map: MemoryMap,
        makeIndex: @escaping () -> FlatIndex
    ) {
        self.addresses = addresses
        self.map = map
        self.allTrackedObjects = allTrackedObjects
        self.makeIndex = makeIndex
        var positionOfSlot = [Int32](repeating: -1, count: (slots.max().map { Int($0) } ?? -1) + 1)
        for (position, slot) in slots.enumerated() where slot >= 0 { positionOfSlot[Int(slot)] = Int32(position) }
        self.positionOfSlot = positionOfSlot
        // The slot's place is confirmed on the first held `TrackedObject` (held, so alive);
        // with none among the first few, every lookup is hashed.
        var confirmed = false
        if readsObjects {
            for position in addresses.indices.prefix(64) where slots[position] >= 0 {
                guard let object = UnsafeRawPointer(bitPattern: UInt(addresses[position])),
                    Self.isTrackedObjectClass(object.load(as: UInt.self), map: map)
                else { continue }
                confirmed = object.load(fromByteOffset: Self.slotOffset, as: Int32.self) == slots[position]
                break
            }
        }
        self.readsObjects = readsObjects && confirmed
    }

    /// The held position of the object at `address`, or -1. `strongReference`: the word is a
    /// strong reference read from a held object (so the object it names is alive).
    func position(of address: UInt, strongReference: Bool) -> Int {
        // Only a word that can be a native object's address: 16-byte aligned, in the lower half
        // of the address space (a tagged pointer, on Apple platforms, is neither).
        if strongReference && readsObjects && address & 15 == 0 && address >> 47 == 0,
            let object = UnsafeRawPointer(bitPattern: address)
        {
            let metadata = object.load(as: UInt.self)
            if metadata != lastClass {
                lastClass = metadata
                if let known = trackedClasses[metadata] {
                    lastClassIsTracked = known
                } else {
                    lastClassIsTracked = Self.isTrackedObjectClass(metadata, map: map)
                    trackedClasses[metadata] = lastClassIsTracked
                }
            }
            if lastClassIsTracked {
                let slot = Int(object.load(fromByteOffset: Self.slotOffset, as: Int32.self))
                if slot >= 0 && slot < positionOfSlot.count {
                    let position = Int(positionOfSlot[slot])
                    if position >= 0 && addresses[position] == UInt64(address) { return position }
                }
            }
            if allTrackedObjects { return -1 }
        }
        if index == nil { index = makeIndex() }
        return index!.position(of: UInt64(address)) ?? -1
    }

    /// Whether the heap object whose metadata is at `metadata` is an instance of `TrackedObject`
    /// or of a subclass (not a box, a closure context or an error, whose metadata is not a
    /// class's).
    static func isTrackedObjectClass(_ metadata: UInt, map: MemoryMap) -> Bool {
        guard map.holdsWord(at: metadata), let pointer = UnsafeRawPointer(bitPattern: metadata) else {
            return false
        }
        let kind = pointer.load(as: UInt.self)
        guard kind == 0 || kind >= 0x800 else { return false }  // a class
        // Up a bounded chain of readable class metadata (a word changed by another thread
        // meanwhile can name anything).
        var current: AnyClass? = unsafeBitCast(pointer, to: AnyClass.self)
        for _ in 0..<64 {
            guard let type = current else { return false }
            if type == TrackedObject.self { return true }
            guard let superclass = _getSuperclass(type) else { return false }
            let superMetadata = UInt(bitPattern: unsafeBitCast(superclass, to: UnsafeRawPointer.self))
            guard map.holdsWord(at: superMetadata),
                let superPointer = UnsafeRawPointer(bitPattern: superMetadata),
                superPointer.load(as: UInt.self) == 0 || superPointer.load(as: UInt.self) >= 0x800
            else { return false }
            current = superclass
        }
        return false
    }
}
