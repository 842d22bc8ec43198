import CLeakGraphSupport

/// Words that may be references but whose type does not say so: an `Unmanaged`, a
/// `ManagedBuffer`'s tail slots, a `Mutex`'s contents, a constrained existential. Each is
/// compared with the snapshot's live objects and never loaded; a match is a
/// ``CandidateReference``, which the snapshot counts as owning only where the target's retain
/// count has exactly that many references nothing else explains (``EdgeKind/unmanaged``).
extension HeapWalker {
    /// An `Unmanaged` word: `passRetained` makes it owning, `passUnretained` does not, and
    /// nothing in memory tells them apart.
    mutating func unmanagedWord(_ word: UInt, from work: Work, label: String) {
        guard word != 0 else { return }
        let position = heldPosition(word, false)
        guard position >= 0 else { return }
        candidates.append(CandidateReference(from: work.owner, to: position, label: label, region: -1))
    }

    /// Starts a region of untyped words: said unread (`why`) unless every word in it is
    /// accounted for (see ``compare(_:in:from:label:)``).
    mutating func openRegion(owner: Int, place: String, why: String) -> Int32 {
        regions.append(UntypedRegion(owner: owner, place: place.isEmpty ? "fields" : place, why: why))
        return Int32(regions.count - 1)
    }

    /// One word of an untyped region: a live object's address is a candidate reference; a word
    /// that looks like an object the snapshot does not hold (one tracking did not record, a
    /// storage buffer) leaves the region unread, since what it holds cannot be followed.
    mutating func compare(_ word: UInt, in region: Int32, from work: Work, label: @autoclosure () -> String) {
        guard word != 0, !candidate(word, in: region, from: work, label: label()) else { return }
        unsettle(region, ifObject: word)
    }

    /// A candidate reference when `word` is a held object's address; false when it is not.
    mutating func candidate(
        _ word: UInt, in region: Int32, from work: Work, label: @autoclosure () -> String, isTaskWord: Bool = false
    ) -> Bool {
        let position = heldPosition(word, false)
        guard position >= 0 else { return false }
        candidates.append(
            CandidateReference(from: work.owner, to: position, label: label(), region: region, isTaskWord: isTaskWord))
        return true
    }

    /// Leaves `region` unread when `word`, which matched no held object, looks like an object.
    mutating func unsettle(_ region: Int32, ifObject word: UInt) {
        if regions[Int(region)].isAccountedFor, looksLikeObject(word) { regions[Int(region)].isAccountedFor = false }
    }

    /// `count` untyped words at `offset` of the work's memory.
    mutating func words(offset: Int, count: Int, path: String, why: String, in work: Work) {
        let place = Self.join(work.prefix, path)
        let region = openRegion(owner: work.owner, place: place, why: why)
        for index in 0..<count {
            let word = work.base.load(fromByteOffset: offset + index * 8, as: UInt.self)
            compare(word, in: region, from: work, label: place)
        }
    }

    /// The tail elements of a `ManagedBuffer`, whose whole allocation (`allocationSize` bytes;
    /// nil: unknown, so the tail is said unread) is readable at `memory`. Every slot the
    /// allocation has room for is compared: which ones hold values only the buffer's owner knows,
    /// and a slot that once did keeps its stale word.
    mutating func tail(_ tail: TypePlan.Tail, memory: UnsafeRawPointer?, allocationSize: Int?, owner: Int) {
        if let memory, let allocationSize, let live = tail.liveSlots,
            let slots = liveSlots(live, memory: memory, slotCount: (allocationSize - tail.offset) / tail.stride)
        {
            // The header says which slots hold elements: those are read exactly, as an array's.
            let plan = tail.element.plan
            if let reason = plan.unreadReason { noteUnread(owner: owner, in: "tail[…]", why: reason) }
            for slot in slots {
                stack.append(
                    Work(
                        base: memory + tail.offset + slot * tail.stride, plan: plan, owner: owner,
                        prefix: "tail[\(slot)]", origin: .reflected, closure: nil, hops: 0))
            }
            return
        }
        let elementType = displayTypeName(tail.element.type.type)
        let why =
            "tail elements: the \(elementType) elements of a ManagedBuffer (which slots hold values only the "
            + "buffer's owner knows)"
        let region = openRegion(owner: owner, place: "tail", why: why)
        guard let allocationSize, let memory, allocationSize > tail.offset, allocationSize <= Self.maximumTailBytes
        else {
            regions[Int(region)].isAccountedFor = false
            return
        }
        let plan = tail.element.plan
        // Where in each slot a reference may be: the element's own strong words when that is all
        // it holds (`[Node]`, a struct of class references), else every aligned word.
        var offsets: [(offset: Int, path: String)] = []
        var everyWord = !plan.complete
        for step in plan.steps {
            if case .strong(let offset, let path) = step {
                offsets.append((offset, path))
            } else {
                everyWord = true
            }
        }
        if everyWord {
            offsets = stride(from: 0, to: max(8, tail.stride) - 7, by: 8).map { ($0, "") }
        }
        let work = Work(
            base: memory, plan: .empty, owner: owner, prefix: "", origin: .reflected, closure: nil, hops: 0)
        let slots = (allocationSize - tail.offset) / tail.stride
        for slot in 0..<slots {
            let slotStart = tail.offset + slot * tail.stride
            for (offset, path) in offsets where slotStart + offset + 8 <= allocationSize {
                let word = memory.load(fromByteOffset: slotStart + offset, as: UInt.self)
                compare(word, in: region, from: work, label: path.isEmpty ? "tail[\(slot)]" : "tail[\(slot)].\(path)")
            }
        }
    }

    /// The initialised slots the header names (nil when its values do not fit the allocation:
    /// then every slot is compared).
    func liveSlots(_ live: TypePlan.LiveSlots, memory: UnsafeRawPointer, slotCount: Int) -> [Int]? {
        let count = memory.load(fromByteOffset: live.countOffset, as: Int.self)
        guard count >= 0, count <= slotCount else { return nil }
        guard let startOffset = live.startOffset, let capacityOffset = live.capacityOffset else {
            return Array(0..<count)
        }
        let start = memory.load(fromByteOffset: startOffset, as: Int.self)
        let capacity = memory.load(fromByteOffset: capacityOffset, as: Int.self)
        guard capacity >= count, capacity <= slotCount, start >= 0, start < max(capacity, 1) else { return nil }
        return (0..<count).map { (start + $0) % capacity }
    }

    /// The tail of a `ManagedBuffer` at `address` that the snapshot does not hold: alive (a strong
    /// reference points at it) and read in place, unless unheld memory is copied — then its size
    /// comes from a copy of its malloc header and its memory is copied.
    mutating func unheldTail(_ tail: TypePlan.Tail, at address: UInt, atLeast minimum: Int, owner: Int) {
        let size =
            memory.copies
            ? unheldAllocationSize(address, atLeast: minimum)
            : UnsafeRawPointer(bitPattern: address).map { lg_allocation_size($0) }
        let readable = size.flatMap { $0 <= Self.maximumTailBytes ? memory.read(address, count: $0) : nil }
        self.tail(tail, memory: readable, allocationSize: size, owner: owner)
    }

    /// The most bytes of one `ManagedBuffer` compared (16 MiB: two million words).
    static let maximumTailBytes = 1 << 24

    /// The allocation size of an object the walk does not hold, from its malloc chunk header
    /// read through a fault-safe copy (nil where headers cannot be read so).
    mutating func unheldAllocationSize(_ address: UInt, atLeast minimum: Int) -> Int? {
        guard let object = UnsafeRawPointer(bitPattern: address) else { return nil }
        var size = 0
        if lg_sanitizer_allocation_size(object, &size) == 0 {
            guard let header = memory.copyOf(address - 8, count: 8) else { return nil }
            size = lg_allocation_size_from_header(header.load(as: UInt.self))
        }
        guard size >= minimum, UInt(size) <= map.readableBytes(at: address) else { return nil }
        return size
    }

    /// Whether `word` points at what looks like a heap object whose class or context metadata
    /// checks out (read through ``UnheldMemory``: never trusted, never faulting).
    mutating func looksLikeObject(_ word: UInt) -> Bool {
        // Asked again and again for the same words (executors, shared storage): answered once.
        if let known = objectLikeWords[word] { return known }
        let answer = checkLooksLikeObject(word)
        objectLikeWords[word] = answer
        return answer
    }

    private mutating func checkLooksLikeObject(_ word: UInt) -> Bool {
        guard word & 7 == 0, word >= 1 << 16, map.isHeapLike(word, length: 16), !map.isImage(word, length: 16),
            let header = memory.copyOf(word, count: 16)
        else { return false }
        let metadataWord = header.load(as: UInt.self)
        // Copied wherever it is: a stale word may point anywhere in the heap, or anywhere in an
        // image (where an in-place read can land in a global's padding).
        let descriptionOffset = ClassMetadataLayout.descriptionOffset
        let length = descriptionOffset + 8
        guard metadataWord & 7 == 0, let metadata = memory.copyOfReadable(metadataWord, count: length) else {
            return false
        }
        switch metadata.load(as: UInt.self) {
        case 0x400, 0x500: return true
        case 0, 0x800...:
            // A class's nominal descriptor (read through a copy too).
            let descriptor = metadata.load(fromByteOffset: descriptionOffset, as: UInt.self)
            return memory.classDescriptorCopy(descriptor, count: 4) != nil
        default: return false
        }
    }
}

/// A word that matched a live object's address where the type does not say it owns it (see
/// ``EdgeKind/unmanaged``).
struct CandidateReference {
    /// The owner, as ``DiscoveredReference/from``.
    var from: Int
    /// The target: a held object's position, or for a task's word at an object tracking did not
    /// record, `trackedCount +` its node (renumbered with the nodes).
    var to: Int
    let label: String
    /// The untyped region it was read from (-1: an `Unmanaged` field, drawn as `.unknown` when
    /// the counts do not confirm it).
    let region: Int32
    /// A word of a task's memory: drawn (as `.unknown`) when the counts do not confirm it, so
    /// that an owner the task's frames point back at can be said a possible leak.
    var isTaskWord = false
    /// For a task's word: the task at the top of its family (itself, or the task whose child
    /// tasks — a group's, an `async let`'s — it is under, as ``from``; -1 until known). The words
    /// of one family are credited together (see ``CandidateResolution``): a parent waits for its
    /// children, so none of them finishes while another cannot.
    var family = -1
}

/// Memory of one object whose words were compared because their type could not be read: said
/// unread unless every word is accounted for (zero, a held object's address confirmed by its
/// count, or not object-like).
struct UntypedRegion {
    /// The owner, as ``DiscoveredReference/from``.
    var owner: Int
    let place: String
    let why: String
    /// False once a word looked like an object the snapshot does not hold.
    var isAccountedFor = true
}
