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
    /// What ``find(_:addresses:trackedCount:map:asksWhetherRecorded:followsObjects:looksAtStacks:heldPosition:)``
    /// found of its targets (positions).
    struct Found: Equatable {
        /// Each target something outside holds, with how many such references were found.
        var references: [Int: Int] = [:]
        /// The targets a global holds, directly or through objects tracking did not record: a
        /// global's word is a live program's (a stack slot may be a returned frame's, stale).
        var heldByGlobals: Set<Int> = []
    }

    /// The most words of globals looked at (8 MiB of pointers).
    static let globalWordCapacity = 1 << 20
    /// The most words of stacks looked at.
    static let stackWordCapacity = 1 << 18

    /// For each of `targets` (positions of held objects, at `addresses`) that something outside
    /// holds, how many such references were found (at least 1). `followsObjects`: objects tracking
    /// did not record are read (whole-process snapshots, where they are few; otherwise only array
    /// buffers are, as the main walk does not follow untracked objects either). `looksAtStacks`:
    /// false to look at globals only (and what they reach).
    static func find(
        _ targets: [Int], addresses: (Int) -> UInt, trackedCount: Int, map: MemoryMap, asksWhetherRecorded: Bool,
        followsObjects: Bool, looksAtStacks: Bool = true, heldPosition: @escaping (UInt, Bool) -> Int
    ) -> Found {
        guard !targets.isEmpty else { return Found() }
        var positionOfAddress: [UInt: Int] = [:]
        for target in targets { positionOfAddress[addresses(target)] = target }
        var found = Found()
        func count(_ address: UInt, references: Int = 1, global: Bool) {
            guard let position = positionOfAddress[address] else { return }
            found.references[position, default: 0] += references
            if global { found.heldByGlobals.insert(position) }
        }
        let sorted = positionOfAddress.keys.sorted()
        // Directly in a global.
        var slots = [UInt](repeating: 0, count: GlobalHolders.capacity)
        var hits = [UInt](repeating: 0, count: GlobalHolders.capacity)
        let globalHits = lg_find_global_holders(sorted, sorted.count, &slots, &hits, GlobalHolders.capacity)
        for index in 0..<globalHits { count(hits[index], global: true) }
        // In a local of a running function, or on a blocked thread's stack.
        if looksAtStacks {
            for address in StackHolders.held(sorted) { count(address, global: false) }
        }
        // Through objects tracking did not record, reached from globals and stacks (a target that
        // is one of them, reached so, is held from outside too).
        let reached = reachedThroughUnrecordedObjects(
            trackedCount: trackedCount, map: map, asksWhetherRecorded: asksWhetherRecorded,
            followsObjects: followsObjects, looksAtStacks: looksAtStacks, addresses: addresses,
            heldPosition: heldPosition)
        for (address, references) in reached.fromGlobals { count(address, references: references, global: true) }
        for (address, references) in reached.fromStacks { count(address, references: references, global: false) }
        return found
    }

    /// The objects that Swift objects tracking did not record, reached from the globals and the
    /// stacks, refer to — by address, with how many references; such an object itself counts
    /// too —: those objects are walked as a snapshot walks any object, through fault-safe copies.
    /// What the globals' words reach is walked first and told apart.
    private static func reachedThroughUnrecordedObjects(
        trackedCount: Int, map: MemoryMap, asksWhetherRecorded: Bool, followsObjects: Bool, looksAtStacks: Bool,
        addresses: (Int) -> UInt, heldPosition: @escaping (UInt, Bool) -> Int
    ) -> (fromGlobals: [UInt: Int], fromStacks: [UInt: Int]) {
        var globalWords = [UInt](repeating: 0, count: globalWordCapacity)
        globalWords.removeLast(globalWordCapacity - lg_collect_global_words(&globalWords, globalWordCapacity))
        var walker = HeapWalker(
            trackedCount: trackedCount, map: map, scanClosures: true, untrackedHops: 0, copiesUnheldMemory: true,
            followsUnrecordedObjects: true, asksWhetherRecorded: asksWhetherRecorded, heldPosition: heldPosition)
        var seen: Set<UInt> = []
        walk(globalWords, with: &walker, seen: &seen, map: map, followsObjects: followsObjects)
        let fromGlobals = references(walker, found: 0, candidates: 0, trackedCount: trackedCount, addresses: addresses)
        guard looksAtStacks else { return (fromGlobals, [:]) }
        let (foundBefore, candidatesBefore) = (walker.found.count, walker.candidates.count)
        walk(
            StackHolders.words(capacity: stackWordCapacity), with: &walker, seen: &seen, map: map,
            followsObjects: followsObjects)
        let fromStacks = references(
            walker, found: foundBefore, candidates: candidatesBefore, trackedCount: trackedCount, addresses: addresses)
        return (fromGlobals, fromStacks)
    }

    /// Walks the objects `words` (a global's or a stack's, maybe stale) point at that tracking did
    /// not record, and what they refer to.
    private static func walk(
        _ words: [UInt], with walker: inout HeapWalker, seen: inout Set<UInt>, map: MemoryMap, followsObjects: Bool
    ) {
        let root = HeapWalker.Work(
            base: rootBase, plan: .empty, owner: -1, prefix: "", origin: .reflected, closure: nil, hops: 0)
        let heldPosition = walker.heldPosition
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
    }

    /// The references the walk found from its `found`-th reference and `candidates`-th compared
    /// word on, by the address they point at.
    private static func references(
        _ walker: HeapWalker, found: Int, candidates: Int, trackedCount: Int, addresses: (Int) -> UInt
    ) -> [UInt: Int] {
        var reached: [UInt: Int] = [:]
        for reference in walker.found[found...] where reference.kind.keepsAlive {
            switch reference.to {
            case .tracked(let position): reached[addresses(position), default: 0] += 1
            case .node(let node): reached[walker.nodes[node].address, default: 0] += 1
            }
        }
        // An untyped word at a held object may be a holder too.
        for candidate in walker.candidates[candidates...] where candidate.to < trackedCount {
            reached[addresses(candidate.to), default: 0] += 1
        }
        return reached
    }

    /// The memory a root's empty plan never reads.
    private static var rootBase: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 0x10)! }
}
