import CLeakGraphSupport

/// Swift concurrency tasks, reached from what holds them: a stored `Task` handle (a strong
/// reference) or a pending continuation (the only thing that can resume a suspended task).
///
/// The runtime allocates a task with `malloc`, outside `swift_allocObject`, so no task is ever
/// recorded: one reached this way becomes a node of type `Task`, always read through fault-safe
/// copies, whatever the snapshot's mode — a task runs on its own thread and may finish and be
/// freed while the walk is inside it, even when the tracked objects are quiet. Its memory — its header, its closure's context and its
/// first async frames, which live in the task's own allocation — is compared word by word with the
/// live objects (see ``compare(_:in:from:label:)``): a closure context or an object a frame holds
/// counts as held by the task where its retain count has exactly that room.
extension HeapWalker {
    mutating func task(_ address: UInt, from work: Work, label: String) {
        guard isNewUnrecordedNode(address, from: work, label: label) else { return }
        guard address & 7 == 0, let header = memory.copyOf(address, count: 16),
            // A task's class is the runtime's own, in an image: a stale word is never followed.
            case let metadata = header.load(as: UInt.self), map.isImage(metadata, length: 8),
            let kind = memory.readMetadata(metadata, count: 8)?.load(as: UInt.self),
            kind == HeapObjectKind.taskMetadataKind
        else { return }
        let holders = UnheldMemory.strongCount(header: header) ?? Int(Int32.max)
        let node = addNode(address, type: TaskNode.typeName, retainCount: holders)
        nodes[node].weakAndUnownedReferences = inlineWeakAndUnownedReferences(header)
        add(work, to: .node(node), kind: .strong, label: label)
        let owner = trackedCount + node
        let region = openRegion(
            owner: owner, place: "frames",
            why: UnreadReferenceInfo.taskMemoryReason
                + " (its closure's context and suspended frames): which of its words are owned references and "
                + "which borrowed copies nothing tells")
        // Its allocation: the task, its initial context and the first slab of its frames.
        guard let size = unheldAllocationSize(address, atLeast: 64), size <= Self.maximumTaskBytes,
            let memory = memory.copyOf(address, count: size)
        else {
            regions[Int(region)].isAccountedFor = false
            return
        }
        let taskWork = Work(
            base: memory, plan: .empty, owner: owner, prefix: "", origin: .reflected, closure: nil, hops: 0)
        // The task's frames live in slabs its allocator takes from `malloc`, which the task (and
        // each slab, the next) points at: only blocks shaped as slabs are followed, within a
        // budget, and only their used part is compared — past it lie the words of frames that
        // returned, stale, which may point anywhere (another task's objects, most often).
        var pending: [(base: UnsafeRawPointer, start: Int, end: Int)] = [(memory, TaskStatus.jobFlagsOffset, size)]
        // The task's allocation and the slabs read: a word inside one is the task's own pointer
        // (a frame's link to its parent), neither an object nor a block to follow.
        var ranges: [Range<UInt>] = [address..<address + UInt(size)]
        var seen: Set<UInt> = []
        // Where it resumes, innermost first: its async frames' chain when it can be read, else
        // the code addresses its memory holds (a stale one from the allocation's last user can
        // then name it wrongly).
        let (chain, resumeOffset) = resumeChain(memory, size: size)
        // A child task's parent pointer: a link of its family (see `settleTaskWords`), said as such.
        var parentOffset = -1
        if let resumeOffset, let status = TaskStatus(task: memory, size: size, resumeOffset: resumeOffset) {
            nodes[node].label = status.description
            nodes[node].state = status.isComplete ? .unspecified : .active
            let offset = resumeOffset + TaskStatus.parentFromResume
            if status.isChild, offset + 8 <= size {
                let parent = memory.load(fromByteOffset: offset, as: UInt.self)
                if parent != 0, parent & 15 == 0, parent != address {
                    taskParents[owner] = parent
                    parentOffset = offset
                }
            }
        }
        var codeAddresses: [UInt] = chain
        defer { nodes[node].codeAddresses = codeAddresses }
        var budget = Self.maximumTaskBytes
        while let (base, start, end) = pending.popLast() {
            // From past the task's own header and its job's two scheduler words (links of an
            // executor's queue, to other jobs: another task's memory is not this task's).
            for offset in stride(from: start, to: end - 7, by: 8) {
                let word = base.load(fromByteOffset: offset, as: UInt.self)
                // Its own address (a task refers to itself) is no holder.
                guard word != 0, word != address else { continue }
                if map.isCode(word) {
                    // Where it resumes: its own and each async frame's resume function.
                    if chain.isEmpty && codeAddresses.count < 32 { codeAddresses.append(word) }
                    continue
                }
                let label = base == memory && offset == parentOffset ? TaskNode.parentTaskLabel : "frames"
                if candidate(word, in: region, from: taskWork, label: label, isTaskWord: true) { continue }
                guard !ranges.contains(where: { $0.contains(word) }) else { continue }
                guard word & 15 == 0 else {
                    unsettle(region, ifObject: word)
                    continue
                }
                // An object tracking did not record (a buffer `libswiftCore` allocated): compared
                // once the walk knows all of them (see ``settleTaskWords()``).
                if let node = nodeOfAddress[word] {
                    candidates.append(
                        CandidateReference(
                            from: owner, to: trackedCount + node, label: label, region: region, isTaskWord: true))
                    continue
                }
                guard seen.insert(word).inserted else { continue }
                if looksLikeObject(word) {
                    unsettledTaskWords.append((word, owner, region))
                    continue
                }
                guard let slab = slab(at: word, budget: budget) else { continue }
                budget -= slab.size
                ranges.append(word..<word + UInt(slab.size))
                pending.append((slab.memory, Self.slabHeaderBytes, Self.slabHeaderBytes + slab.used))
                // The slab after it, which the allocator keeps (empty, or in use by deeper frames).
                let next = slab.memory.load(fromByteOffset: 8, as: UInt.self)
                if next != 0, !ranges.contains(where: { $0.contains(next) }), seen.insert(next).inserted,
                    let following = self.slab(at: next, budget: budget)
                {
                    budget -= following.size
                    ranges.append(next..<next + UInt(following.size))
                    pending.append((following.memory, Self.slabHeaderBytes, Self.slabHeaderBytes + following.used))
                }
            }
        }
    }

    /// The words of tasks' memory that looked like objects the snapshot does not hold, once the
    /// walk is done: one a walk reached (an unrecorded object, a node) is a candidate reference
    /// like any held object's address; any other leaves its task's memory unread.
    mutating func settleTaskWords() {
        for (word, owner, region) in unsettledTaskWords {
            if let node = nodeOfAddress[word] {
                candidates.append(
                    CandidateReference(
                        from: owner, to: trackedCount + node, label: "frames", region: region, isTaskWord: true))
            } else {
                regions[Int(region)].isAccountedFor = false
            }
        }
        unsettledTaskWords = []
        // Each task word's family: up the parent links whose parent is a task the walk reached.
        var roots: [Int: Int] = [:]
        func root(of task: Int) -> Int {
            if let known = roots[task] { return known }
            var current = task
            for _ in 0..<64 {
                guard let parent = taskParents[current], let node = nodeOfAddress[parent],
                    nodes[node].type == TaskNode.typeName, trackedCount + node != task
                else { break }
                current = trackedCount + node
            }
            roots[task] = current
            return current
        }
        for index in candidates.indices where candidates[index].isTaskWord {
            candidates[index].family = root(of: candidates[index].from)
        }
    }

    /// A copy of the slab of a task's allocator at `address`, and how many of its bytes past the
    /// header frames use; nil when the block there is not one: its first word the slabs' metadata
    /// (``slabMetadata``), then the next slab, then its capacity and the bytes in use (32 bits
    /// each, the second not above the first), all within the malloc block.
    private mutating func slab(at address: UInt, budget: Int) -> (memory: UnsafeRawPointer, size: Int, used: Int)? {
        guard map.isHeapLike(address, length: UInt(Self.slabHeaderBytes)),
            let header = memory.copyOf(address, count: Self.slabHeaderBytes)
        else { return nil }
        let metadata = header.load(as: UInt.self)
        let capacity = Int(header.load(fromByteOffset: 16, as: UInt32.self))
        let used = Int(header.load(fromByteOffset: 20, as: UInt32.self))
        guard metadata == Self.slabMetadata, metadata != 0, capacity > 0, used <= capacity,
            let size = unheldAllocationSize(address, atLeast: Self.slabHeaderBytes + capacity), size <= budget,
            let copy = memory.copyOf(address, count: Self.slabHeaderBytes + used)
        else { return nil }
        return (copy, size, used)
    }

    /// The metadata the concurrency runtime gives its allocator's slabs, as it exports it for
    /// debuggers (0 where it does not: then no slab is followed, and a task's frames past its own
    /// allocation stay unread).
    static let slabMetadata = lg_exported_word("_swift_concurrency_debug_asyncTaskSlabMetadata")

    /// A slab's header: its metadata, the next slab, its capacity and the bytes in use, rounded
    /// up to the allocator's 16-byte alignment.
    static let slabHeaderBytes = 32

    /// The functions a suspended task resumes in, innermost first: its `ResumeTask` and, from its
    /// `ResumeContext`, each async frame's `ResumeParent` up the `Parent` chain (read through
    /// copies). Empty when the header does not show that shape. The two words' place moves with
    /// the runtime's `Job` layout (a voucher and a reserved word came before them in newer
    /// runtimes): the first place where a code address is followed by a context whose own resume
    /// word is code is taken; its offset is returned with the chain.
    private mutating func resumeChain(_ task: UnsafeRawPointer, size: Int) -> (chain: [UInt], offset: Int?) {
        for offset in stride(from: 40, through: 72, by: 8) where offset + 16 <= size {
            let resume = task.load(fromByteOffset: offset, as: UInt.self)
            var context = task.load(fromByteOffset: offset + 8, as: UInt.self)
            guard map.isCode(resume), context != 0, context & 7 == 0 else { continue }
            var chain = [resume]
            while context != 0, chain.count < 32, let words = memory.copyOf(context, count: 16) {
                let parent = words.load(as: UInt.self)
                let resumeParent = words.load(fromByteOffset: 8, as: UInt.self)
                guard map.isCode(resumeParent) else { break }
                chain.append(resumeParent)
                context = parent
            }
            if chain.count > 1 { return (chain, offset) }
        }
        return ([], nil)
    }

    /// The most bytes of one task compared: its own allocation and the blocks it points at (its
    /// slabs of frames are a few kilobytes each).
    static let maximumTaskBytes = 1 << 20
}

/// How a task reached by discovery appears in a snapshot.
public enum TaskNode {
    /// The type name of a task's node (`ObjectInfo.type`).
    public static let typeName = "Task"
    /// Between what a task's label says it waits in and its status (`waiting in f() at F.swift:3 ·
    /// suspended, priority medium`).
    public static let statusSeparator = " · "
    /// Between where a task waits and the closure it was started with, in its label (`waiting in
    /// f() at F.swift:3, task started in closure #1 in g() at G.swift:9 · suspended`).
    public static let startedSeparator = ", task started in "
    /// The label of a child task's edge to its parent.
    public static let parentTaskLabel = "parent task"
}
