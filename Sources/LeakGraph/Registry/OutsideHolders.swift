import CLeakGraphSupport

/// Which objects something outside every object a snapshot reads still holds: a global or a
/// thread's stack, directly, or through Swift objects whole-process tracking did not record (a
/// global array whose buffer `libswiftCore` allocated itself, in a debug build).
///
/// Asked before a suspended task's frames are credited with an object's unexplained references
/// (see ``CandidateResolution``): a frame holds owned references and borrowed copies side by side,
/// so its words outnumber what it owns, and the credit is sound only when no other holder the
/// graph cannot show exists. A holder found here keeps the object held from outside (a live
/// producer that can still resume the task); a word that merely equals an address (an integer, a
/// stale slot) only withholds the credit, which leaves the verdict at "possible leak", never a
/// false "leaked".
///
/// A Swift object's own references are the walk's (a closure context whose captures cannot be
/// placed has its words compared, so a Dispatch block's closure that keeps the object shows).
/// Not seen, and said in the README: a reference kept only in memory that is neither a Swift
/// object, a global nor a stack — a C structure holding a retained `Unmanaged`, a value in memory
/// from `UnsafeMutablePointer.allocate`, or a closure that captures the object alone (its context
/// is then the object itself) kept by C code.
enum OutsideHolders {
    /// The most words of globals looked at (8 MiB of pointers).
    static let globalWordCapacity = 1 << 20
    /// The most words of stacks looked at.
    static let stackWordCapacity = 1 << 18

    /// For each of `targets` (positions of held objects, at `addresses`) that something outside
    /// holds, how many such references were found (at least 1). `followsObjects`: objects tracking
    /// did not record are read (whole-process snapshots, where they are few; otherwise only array
    /// buffers are, as the main walk does not follow untracked objects either).
    static func find(
        _ targets: [Int], addresses: (Int) -> UInt, trackedCount: Int, map: MemoryMap, asksWhetherRecorded: Bool,
        followsObjects: Bool, heldPosition: @escaping (UInt, Bool) -> Int
    ) -> [Int: Int] {
        guard !targets.isEmpty else { return [:] }
        var positionOfAddress: [UInt: Int] = [:]
        for target in targets { positionOfAddress[addresses(target)] = target }
        var found: [Int: Int] = [:]
        func count(_ address: UInt) {
            if let position = positionOfAddress[address] { found[position, default: 0] += 1 }
        }
        let sorted = positionOfAddress.keys.sorted()
        // Directly in a global.
        var slots = [UInt](repeating: 0, count: GlobalHolders.capacity)
        var hits = [UInt](repeating: 0, count: GlobalHolders.capacity)
        let globalHits = lg_find_global_holders(sorted, sorted.count, &slots, &hits, GlobalHolders.capacity)
        for index in 0..<globalHits { count(hits[index]) }
        // In a local of a running function, or on a blocked thread's stack.
        for address in StackHolders.held(sorted) { count(address) }
        // Through objects tracking did not record, reached from globals and stacks (a target that
        // is one of them, reached so, is held from outside too).
        for (address, references) in reachedThroughUnrecordedObjects(
            trackedCount: trackedCount, map: map, asksWhetherRecorded: asksWhetherRecorded,
            followsObjects: followsObjects, addresses: addresses, heldPosition: heldPosition)
        {
            if let position = positionOfAddress[address] { found[position, default: 0] += references }
        }
        return found
    }

    /// The objects that Swift objects tracking did not record, reached from the globals and the
    /// stacks, refer to — by address, with how many references; such an object itself counts
    /// too —: those objects are walked as a snapshot walks any object, through fault-safe copies.
    private static func reachedThroughUnrecordedObjects(
        trackedCount: Int, map: MemoryMap, asksWhetherRecorded: Bool, followsObjects: Bool,
        addresses: (Int) -> UInt, heldPosition: @escaping (UInt, Bool) -> Int
    ) -> [UInt: Int] {
        var words = [UInt](repeating: 0, count: globalWordCapacity)
        words.removeLast(globalWordCapacity - lg_collect_global_words(&words, globalWordCapacity))
        words += StackHolders.words(capacity: stackWordCapacity)
        var walker = HeapWalker(
            trackedCount: trackedCount, map: map, scanClosures: true, untrackedHops: 0, copiesUnheldMemory: true,
            followsUnrecordedObjects: true, asksWhetherRecorded: asksWhetherRecorded, heldPosition: heldPosition)
        let root = HeapWalker.Work(
            base: rootBase, plan: .empty, owner: -1, prefix: "", origin: .reflected, closure: nil, hops: 0)
        var seen: Set<UInt> = []
        for word in words where seen.insert(word).inserted {
            guard map.isHeapLike(word, length: 16), !map.isImage(word, length: 16), heldPosition(word, false) < 0,
                walker.looksLikeObject(word), let header = walker.memory.copyOf(word, count: 16)
            else { continue }
            // A word of a global or a stack may be stale (a slot of a returned frame): the runtime
            // is never asked about what it points at unless its class is one an image holds. An
            // array's buffer (generic: its metadata is made at run time) is known by its class's
            // descriptor, read without the runtime.
            let metadata = header.load(as: UInt.self)
            if let element = walker.arrayStorageElement(metadata) {
                walker.arrayElements(of: word, element: element, owner: -1)
            } else if followsObjects, map.isImage(metadata, length: 8) {
                walker.unrecorded(word, from: root, label: "global")
            }
            walker.drain()
        }
        var reached: [UInt: Int] = [:]
        for reference in walker.found where reference.kind.keepsAlive {
            switch reference.to {
            case .tracked(let position): reached[addresses(position), default: 0] += 1
            case .node(let node): reached[walker.nodes[node].address, default: 0] += 1
            }
        }
        // An untyped word at a held object may be a holder too.
        for candidate in walker.candidates where candidate.to < trackedCount {
            reached[addresses(candidate.to), default: 0] += 1
        }
        return reached
    }

    /// The memory a root's empty plan never reads.
    private static var rootBase: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 0x10)! }
}
