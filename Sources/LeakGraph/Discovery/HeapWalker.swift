import CLeakGraphSupport

/// A reference found at snapshot time, before it is merged with the declared edges.
struct DiscoveredReference {
    /// The owner: an index into the snapshot's objects (tracked objects first, then the nodes
    /// discovery added).
    let from: Int
    /// The target: a tracked object's address, or a node discovery added.
    let to: Target
    var kind: EdgeKind
    let label: String
    let origin: EdgeOrigin
    let closureAddress: UInt?

    enum Target: Hashable {
        /// A held object, by its position among the snapshot's objects.
        case tracked(Int)
        case node(Int)
    }
}

/// Memory of one object that held references discovery could not type: what it holds there
/// counts as held from outside, which can turn a leak into "retained". Reports say so.
struct UnreadReference: Equatable {
    /// The owner, as ``DiscoveredReference/from``.
    let owner: Int
    /// Where in the owner: a field path (`capture`, `handlers[2]`) or `fields`.
    let place: String
    /// Why, in words for the user.
    let why: String
}

/// A heap object discovery made a node of its own: storage with more than one holder (an array
/// buffer, a dictionary's storage, a closure context, a `var` box, an indirect enum's box, an
/// existential's box), so that the references inside it are not charged to one owner, or an
/// untracked object on a path between tracked ones.
struct DiscoveredNode {
    let address: UInt
    let type: String
    let retainCount: Int
    /// `weak` and `unowned` references to it; nil when unknown. Storage (buffers, boxes,
    /// contexts) cannot be the target of either.
    var weakAndUnownedReferences: Int? = 0
}

/// Walks the stored properties of live tracked objects through exact type layouts and reports
/// the references that lead to other live tracked objects, labelled with their path
/// (`peer`, `items[2]`, `state.observer`, `byName["k"]`, `slot.full`).
///
/// Soundness rules:
/// - memory is read only where a type's metadata says a value is (``TypePlan``,
///   ``CaptureLayout``, ``CollectionLayout``); a word is a strong reference only when its type
///   says so; `weak` and `unowned(unsafe)` storage is never read; `unowned` words are compared,
///   never loaded;
/// - storage reached through a field (array, dictionary and set storage, closure contexts,
///   boxes) that has other holders than that field becomes a node with its own retain count, so
///   a copy kept elsewhere (an undo history, a queued closure) shows as an outside holder;
/// - no user code runs: no `Mirror`, no `description`, no copies of values except bitwise ones;
/// - every heap object is walked at most once per snapshot, with an explicit work stack: the
///   cost is linear in what is walked and no recursion depth depends on the user's data.
///
/// The snapshot's objects are held, and their fields are read in place: a word another thread
/// writes meanwhile can be stale, which is why verdicts are confirmed by a second look. Memory the
/// snapshot does not hold (storage, boxes) is read as ``UnheldMemory`` says: in place for
/// snapshots of tracked objects, taken at quiet points; through fault-safe copies for
/// whole-process snapshots, where every thread's objects are walked while they run.
struct HeapWalker {
    private let trackedCount: Int
    /// The held position of the object at an address (-1: none); the flag tells a strong
    /// reference read from a held object (its object is alive and may be read).
    private let heldPosition: (UInt, Bool) -> Int
    private var memory: UnheldMemory
    private var map: MemoryMap { memory.map }
    private let scanClosures: Bool
    /// How many hops through untracked objects a walk follows to find a path back to a tracked
    /// one (a `PassthroughSubject` between a Combine subscription and its subscriber).
    private let untrackedHops: Int
    /// Whether strong references to objects whole-process tracking did not record are followed
    /// (full whole-process snapshots, where every recorded object is held: one that is not held
    /// was not recorded).
    private let followsUnrecordedObjects: Bool

    private(set) var found: [DiscoveredReference] = []
    private(set) var nodes: [DiscoveredNode] = []
    /// Why part of the heap could not be read (shown in reports: references there count as held
    /// from outside).
    private(set) var limits: Set<String> = []

    /// What the snapshot's heap-local-variable objects (boxes and closure contexts recorded by
    /// whole-process tracking) were reached as, when they were reached as storage: `box of
    /// BigValue`, `indirect List.link`. Their type is otherwise unknown from their metadata.
    private(set) var storageNames: [UInt: String] = [:]

    /// Memory that held references the walk could not type, by owner (see ``UnreadReference``).
    private(set) var unread: [UnreadReference] = []
    /// One record per owner and reason (an array of 20,000 elements of an unreadable type is
    /// one record).
    private var unreadSeen: Set<UnreadKey> = []

    /// The plans already said unread for an owner (cheaper than hashing their reasons again for
    /// every element of an array of them).
    private var unreadPlans: Set<UnreadPlanKey> = []

    private struct UnreadPlanKey: Hashable {
        let owner: Int
        let plan: ObjectIdentifier
    }

    private struct UnreadKey: Hashable {
        let owner: Int
        let why: String
    }

    private var nodeOfAddress: [UInt: Int] = [:]
    /// The boxes walked so far (see ``box(_:from:path:)``).
    private var walkedBoxes: Set<UInt> = []
    private var walkableClasses: [UInt: Bool] = [:]
    /// Instance plans by class metadata, without the shared cache's lock.
    private var instancePlans: [UInt: TypePlan] = [:]
    private var stack: [Work] = []
    /// Bitwise copies of multi-payload enums, freed when the walk ends.
    private var scratch: [UnsafeMutableRawPointer] = []

    /// The most untracked objects one snapshot adds.
    static let untrackedNodeLimit = 100_000

    private struct Work {
        let base: UnsafeRawPointer
        let plan: TypePlan
        let owner: Int
        let prefix: String
        let origin: EdgeOrigin
        let closure: UInt?
        let hops: Int
    }

    /// How many fault-safe copies of unheld memory the walk made.
    var copyCount: Int { memory.copyCount }

    /// - Parameter copiesUnheldMemory: read storage and boxes through fault-safe copies
    ///   (whole-process snapshots: other threads run meanwhile).
    init(
        trackedCount: Int, map: MemoryMap, scanClosures: Bool, untrackedHops: Int = 2,
        copiesUnheldMemory: Bool = false, followsUnrecordedObjects: Bool = false,
        heldPosition: @escaping (UInt, Bool) -> Int
    ) {
        self.followsUnrecordedObjects = followsUnrecordedObjects && copiesUnheldMemory
        self.trackedCount = trackedCount
        self.memory = UnheldMemory(copies: copiesUnheldMemory, map: map)
        self.scanClosures = scanClosures
        self.untrackedHops = untrackedHops
        self.heldPosition = heldPosition
    }

    /// Walks one tracked object's stored properties (`index` is its place among the objects).
    ///
    /// Takes the address, not the object: a strong reference made here, even for the length of
    /// a call, would add one to the object's retain count while another thread's snapshot reads
    /// it, and an unexplained reference is exactly what turns a leak into "retained".
    mutating func walk(address: UInt, index: Int) {
        guard let base = UnsafeRawPointer(bitPattern: address) else { return }
        let metadata = base.load(as: UnsafeRawPointer.self)
        let key = UInt(bitPattern: metadata)
        if HeapObjectKind(metadata: metadata) == .heapLocalVariable {
            // A closure context or `var` box recorded by whole-process tracking: a node of its
            // own, its captures laid out as its capture descriptor says.
            walkContext(base, metadata: metadata, index: index)
            return
        }
        let cls: AnyClass = unsafeBitCast(metadata, to: AnyClass.self)
        let walkable: Bool
        if let known = walkableClasses[key] {
            walkable = known
        } else {
            walkable = Self.isWalkable(cls)
            walkableClasses[key] = walkable
            memory.trust(type: key)  // the class of a held object
        }
        guard walkable else { return }
        let plan: TypePlan
        if let known = instancePlans[key] {
            plan = known
        } else {
            plan = TypePlan.ofInstances(cls)
            instancePlans[key] = plan
            if !plan.complete { limits.insert("fields of \(cls) whose layout cannot be read") }
        }
        if let reason = plan.unreadReason, plan.steps.isEmpty { noteUnread(owner: index, in: "", why: reason) }
        guard !plan.steps.isEmpty else { return }
        stack.append(
            Work(
                base: base, plan: plan, owner: index, prefix: "", origin: .reflected, closure: nil, hops: untrackedHops)
        )
        drain()
    }

    /// Walks a recorded closure context or box. Walk these after every class instance: a box
    /// reached as storage (see ``storageNames``) holds a value, whose fields are labelled by
    /// their own names; a closure context's captures are labelled `capture`.
    private mutating func walkContext(_ base: UnsafeRawPointer, metadata: UnsafeRawPointer, index: Int) {
        // A held context's metadata is real (the context is alive), wherever it lives, and so
        // are the generic arguments it stores (written once, when it was made).
        let descriptor = CaptureDescriptor.of(metadata: metadata, map: map)
        let layout = captureLayout(descriptor, metadata: metadata, context: base, trusted: true)
        if let reason = layout.unreadReason {
            limits.insert("closure contexts with captures of a type that cannot be resolved")
            noteUnread(owner: index, in: "capture", why: reason)
        }
        let isStorage = storageNames[UInt(bitPattern: base)] != nil
        for capture in layout.captures.reversed() {
            stack.append(
                Work(
                    base: base + capture.offset, plan: capture.plan, owner: index, prefix: isStorage ? "" : "capture",
                    origin: isStorage ? .reflected : .captured, closure: nil, hops: untrackedHops))
        }
        drain()
    }

    /// Frees the scratch copies.
    mutating func finish() {
        for buffer in scratch { buffer.deallocate() }
        scratch.removeAll()
        memory.freeCopies()
    }

    /// Walks everything reached from the work stack, then frees the copies made on the way
    /// (nothing found refers into them: references are addresses and labels).
    private mutating func drain() {
        while let work = stack.popLast() {
            if let reason = work.plan.unreadReason,
                unreadPlans.insert(UnreadPlanKey(owner: work.owner, plan: ObjectIdentifier(work.plan))).inserted
            {
                noteUnread(owner: work.owner, in: work.prefix, why: reason)
            }
            for step in work.plan.steps { perform(step, in: work) }
        }
        finish()
    }

    /// The longest label a path gets, in UTF-8 bytes: a deeper path keeps its start and its end
    /// around an ellipsis (`list.link.0.link.1…link.1.link.0`). Each label is built from its
    /// parent's, so unbounded labels made a chain of n indirect links cost n² bytes of copying
    /// (a 200,000-link list took over a minute).
    static let maximumLabelLength = 160

    static func join(_ prefix: String, _ path: String) -> String {
        if prefix.isEmpty { return path }
        if path.isEmpty { return prefix }
        let length = prefix.utf8.count + 1 + path.utf8.count
        guard length > maximumLabelLength else { return prefix + "." + path }
        return elided(prefix, path)
    }

    /// The first 48 and the last 96 bytes of `prefix.path` around an ellipsis, cut at scalar
    /// boundaries: byte copies, no grapheme breaking (a deep structure joins a label per step).
    @inline(never)
    private static func elided(_ prefix: String, _ path: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(maximumLabelLength + 8)
        var head = prefix.utf8.prefix(48)
        while let last = head.last, last & 0xC0 == 0x80 || last & 0xC0 == 0xC0 { head = head.dropLast() }
        bytes += head
        bytes += "…".utf8
        var tail = Array((prefix.utf8.suffix(96) + [UInt8(ascii: ".")] + path.utf8).suffix(96))
        while let first = tail.first, first & 0xC0 == 0x80 { tail.removeFirst() }
        bytes += tail
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func perform(_ step: TypePlan.Step, in work: Work) {
        // A plain strong reference (most steps) before the switch over every kind: unoptimised
        // (LEAKGRAPH_UNOPTIMIZED_DEBUG), entering that switch sets up and clears room for every
        // case's payload.
        if case .strong(let offset, let path) = step {
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            guard word != 0 else { return }
            reference(word, from: work, label: Self.join(work.prefix, path))
            return
        }
        performOther(step, in: work)
    }

    @inline(never)
    private mutating func performOther(_ step: TypePlan.Step, in work: Work) {
        switch step {
        case .strong: return  // handled by `perform`
        case .unowned(let offset, let path):
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            let position = word != 0 ? heldPosition(word, false) : -1
            if position >= 0 {
                add(work, to: .tracked(position), kind: .unowned, label: Self.join(work.prefix, path))
            }
        case .closure(let offset, let path):
            guard scanClosures else { return }
            let code = work.base.load(fromByteOffset: offset, as: UInt.self)
            let context = work.base.load(fromByteOffset: offset + 8, as: UInt.self)
            guard code != 0, context != 0 else { return }
            closure(code: code, context: context, from: work, path: Self.join(work.prefix, path))
        case .box(let offset, let path):
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            guard word != 0 else { return }
            box(word, from: work, path: Self.join(work.prefix, path))
        case .enumeration(let offset, let path, let info):
            enumeration(work.base + offset, info: info, from: work, path: Self.join(work.prefix, path))
        case .existential(let offset, let path):
            existential(work.base + offset, from: work, path: Self.join(work.prefix, path))
        case .array(let offset, let path, let element):
            let storage = work.base.load(fromByteOffset: offset, as: UInt.self)
            array(storage, element: element, from: work, path: Self.join(work.prefix, path))
        case .dictionary(let offset, let path, let key, let value):
            let storage = work.base.load(fromByteOffset: offset, as: UInt.self)
            hashed(storage, key: key, value: value, from: work, path: Self.join(work.prefix, path))
        case .set(let offset, let path, let element):
            let storage = work.base.load(fromByteOffset: offset, as: UInt.self)
            hashed(storage, key: element, value: nil, from: work, path: Self.join(work.prefix, path))
        }
    }

    /// A strong reference word: an edge to a tracked object, or (within the hop budget) a node
    /// for an untracked one, walked in turn.
    private mutating func reference(_ word: UInt, from work: Work, label: String) {
        let position = heldPosition(word, true)
        if position >= 0 {
            add(work, to: .tracked(position), kind: .strong, label: label)
            return
        }
        guard work.hops > 0, let pointer = UnsafeRawPointer(bitPattern: word) else {
            if followsUnrecordedObjects { unrecorded(word, from: work, label: label) }
            return
        }
        if let node = nodeOfAddress[word] {
            add(work, to: .node(node), kind: .strong, label: label)
            return
        }
        guard nodes.count < Self.untrackedNodeLimit else {
            limits.insert("more than \(Self.untrackedNodeLimit) untracked objects between tracked ones")
            return
        }
        // The word is a strong reference of a live object (its type says so), so it points at a
        // live Swift object whose first word is its class.
        let metadata = pointer.load(as: UInt.self)
        guard metadata != 0, map.readableBytes(at: metadata) >= 8,
            let metadataPointer = UnsafeRawPointer(bitPattern: metadata)
        else { return }
        let kind = metadataPointer.load(as: UInt.self)
        guard kind == 0 || kind >= 0x800 else { return }  // a class instance
        let cls: AnyClass = unsafeBitCast(metadataPointer, to: AnyClass.self)
        let classKey = UInt(bitPattern: metadataPointer)
        // Checked before the runtime names it: a word typed as a reference may hold a
        // non-escaping closure's context, on the stack, whose first word is no class metadata
        // (naming it trapped inside the runtime's demangler).
        let walkable =
            walkableClasses[classKey]
            ?? (HeapObjectKind.isClassMetadata(metadataPointer, map: map) && Self.isWalkable(cls))
        walkableClasses[classKey] = walkable
        guard walkable else { return }
        let node = addNode(word, type: displayTypeName(cls))
        // An object the snapshot does not hold, read in place like its retain count: the inline
        // word only (a side table may be freed by another thread meanwhile; then unknown).
        nodes[node].weakAndUnownedReferences = UnsafeRawPointer(bitPattern: word).flatMap(
            inlineWeakAndUnownedReferences)
        add(work, to: .node(node), kind: .strong, label: label)
        let plan = TypePlan.ofInstances(cls)
        guard !plan.steps.isEmpty else { return }
        stack.append(
            Work(
                base: pointer, plan: plan, owner: trackedCount + node, prefix: "", origin: .reflected, closure: nil,
                hops: work.hops - 1))
    }

    /// A strong reference, in a whole-process snapshot, to a live object whole-process tracking
    /// did not record: one `libswiftCore` allocated itself for a user type (in a debug build
    /// `ManagedBuffer.create` is not inlined, so swift-collections' `Deque` buffers are made
    /// there), or one made before tracking began. It becomes a node, read through fault-safe
    /// copies (another thread may free it meanwhile), and its own references are followed.
    private mutating func unrecorded(_ word: UInt, from work: Work, label: String) {
        if let node = nodeOfAddress[word] {
            add(work, to: .node(node), kind: .strong, label: label)
            return
        }
        guard nodes.count < Self.untrackedNodeLimit else {
            limits.insert("more than \(Self.untrackedNodeLimit) objects tracking did not record")
            return
        }
        // Statically allocated objects (empty collections' singletons) live in an image.
        guard !map.isImage(word, length: 16),
            let header = memory.read(word, count: 16)
        else { return }
        let metadataWord = header.load(as: UInt.self)
        #if os(Linux)
            let descriptionOffset = 40
        #else
            let descriptionOffset = 64
        #endif
        guard let metadata = memory.readMetadata(metadataWord, count: descriptionOffset + 8) else { return }
        let kind = metadata.load(as: UInt.self)
        let descriptor = metadata.load(fromByteOffset: descriptionOffset, as: UInt.self)
        guard kind == 0 || kind >= 0x800, descriptor % 4 == 0, map.isImage(descriptor, length: 4),
            let descriptorPointer = UnsafeRawPointer(bitPattern: descriptor),
            descriptorPointer.load(as: UInt32.self) & 0x1F == 16,
            let metadataPointer = UnsafeRawPointer(bitPattern: metadataWord)
        else { return }
        // The class checks out: its metadata is permanent and may be used in place from here.
        memory.trust(type: metadataWord)
        let cls: AnyClass = unsafeBitCast(metadataPointer, to: AnyClass.self)
        let walkable = walkableClasses[metadataWord] ?? Self.isWalkable(cls)
        walkableClasses[metadataWord] = walkable
        guard walkable else { return }
        #if os(Linux)
            let instanceSizeOffset = 24
        #else
            let instanceSizeOffset = 48
        #endif
        let instanceSize = Int(metadata.load(fromByteOffset: instanceSizeOffset, as: UInt32.self))
        guard instanceSize >= 16, instanceSize <= 1 << 20, let instance = memory.read(word, count: instanceSize)
        else { return }
        let holders = UnheldMemory.strongCount(header: instance) ?? Int(Int32.max)
        let node = addNode(word, type: displayTypeName(cls), retainCount: holders)
        // From the copied header: inline counts only (a side table may be freed meanwhile).
        nodes[node].weakAndUnownedReferences = inlineWeakAndUnownedReferences(instance)
        add(work, to: .node(node), kind: .strong, label: label)
        let plan = instancePlans[metadataWord] ?? TypePlan.ofInstances(cls)
        instancePlans[metadataWord] = plan
        if metadataWord == LockStorage.metadataAddress {
            lockedState(word, instance: instance, owner: trackedCount + node)
            return
        }
        if let reason = plan.unreadReason, plan.steps.isEmpty {
            noteUnread(owner: trackedCount + node, in: "", why: reason)
        }
        guard !plan.steps.isEmpty else { return }
        stack.append(
            Work(
                base: instance, plan: plan, owner: trackedCount + node, prefix: "", origin: .reflected, closure: nil,
                hops: 0))
    }

    /// The state a ``Locked`` keeps in its storage's tail (LeakGraph's own lock, which other
    /// libraries' objects hold: a LeakGraphRx subject's observers are there). Its type is in the
    /// storage's header; `instance` is a copy of the storage's object part.
    private mutating func lockedState(_ address: UInt, instance: UnsafeRawPointer, owner: Int) {
        let typeWord = instance.load(fromByteOffset: LockStorage.stateTypeOffset, as: UInt.self)
        guard memory.isUsableType(typeWord), let typePointer = UnsafeRawPointer(bitPattern: typeWord) else {
            noteUnread(owner: owner, in: "state", why: "the state of a lock whose type cannot be checked")
            return
        }
        let type = unsafeBitCast(typePointer, to: Any.Type.self)
        let plan = TypePlan.of(type)
        let alignment = Int(lg_type_flags(typePointer) & 0xFF) + 1
        let offset = (LockStorage.tailOffset + alignment - 1) / alignment * alignment
        guard !plan.steps.isEmpty || !plan.complete,
            let state = memory.read(address, count: offset + max(1, lg_type_size(typePointer)))
        else { return }
        stack.append(
            Work(
                base: state + offset, plan: plan, owner: owner, prefix: "state", origin: .reflected, closure: nil,
                hops: 0))
    }

    /// Foundation's classes on Linux may be toll-free bridged Core Foundation objects whose memory
    /// does not follow their Swift field metadata: they are never walked (their references count
    /// as held from outside).
    private static func isWalkable(_ cls: AnyClass) -> Bool {
        var current: AnyClass? = cls
        while let type = current {
            let name = qualifiedTypeName(type)
            if name.hasPrefix("Foundation.") || name.hasPrefix("CoreFoundation.") || name.hasPrefix("__NS")
                || name.hasPrefix("_NS")
            {
                return false
            }
            current = _getSuperclass(type)
        }
        return true
    }

    private mutating func addNode(_ address: UInt, type: String, retainCount: Int? = nil) -> Int {
        let node = nodes.count
        let count = retainCount ?? UnsafeMutableRawPointer(bitPattern: address).map(runtimeRetainCount) ?? 0
        nodes.append(DiscoveredNode(address: address, type: type, retainCount: count))
        nodeOfAddress[address] = node
        return node
    }

    /// Storage reached through a field: walked as part of the owner when that field is its only
    /// holder; otherwise a node of its own (walked once, whoever reaches it first), so that its
    /// other holders show. Returns where to read its first `byteCount` bytes (a copy, when unheld
    /// memory is copied), and the owner and path prefix to walk its contents with; nil when it
    /// was walked already, is walked on its own, or cannot be read.
    private mutating func enter(
        storage address: UInt, byteCount: Int, type: @autoclosure () -> String, from work: Work, path: String
    ) -> (base: UnsafeRawPointer, owner: Int, prefix: String)? {
        if let node = nodeOfAddress[address] {
            add(work, to: .node(node), kind: .strong, label: path)
            return nil
        }
        let position = heldPosition(address, false)
        if position >= 0 {
            // A box whole-process tracking recorded (the compiler allocates concrete boxes
            // itself): an object of the snapshot, walked on its own, named after what holds it.
            storageNames[address] = type()
            add(work, to: .tracked(position), kind: .strong, label: path)
            return nil
        }
        guard let base = memory.read(address, count: max(16, byteCount)) else {
            limits.insert("storage that could not be read (freed or changed while the snapshot read it)")
            return nil
        }
        // Holders of storage the snapshot does not hold: from the copied header when copying
        // (nil: a side table or an immortal object, so not one holder), else from the runtime.
        let holders =
            memory.copies
            ? UnheldMemory.strongCount(header: base) : runtimeRetainCount(UnsafeMutableRawPointer(mutating: base))
        if let holders, holders <= 1 { return (base, work.owner, path) }
        // An uncounted holder set is shown as many (retained, never leaked).
        let node = addNode(address, type: type(), retainCount: holders ?? Int(Int32.max))
        add(work, to: .node(node), kind: .strong, label: path)
        return (base, trackedCount + node, "")
    }

    private mutating func closure(code: UInt, context: UInt, from work: Work, path: String) {
        let position = heldPosition(context, false)
        if position >= 0 {
            // A context recorded by whole-process tracking is a node of its own, reached through
            // the field that holds the closure. Otherwise a closure with one class capture uses
            // the object itself as its context. A context is always an owned (strong) reference.
            let isContext =
                UnsafeRawPointer(bitPattern: context).map {
                    HeapObjectKind(metadata: $0.load(as: UnsafeRawPointer.self)) == .heapLocalVariable
                } ?? false
            add(
                work, to: .tracked(position), kind: .strong, label: isContext ? path : "capture", origin: .captured,
                closure: code)
            return
        }
        guard let header = memory.read(context, count: 16) else { return }
        let metadata = header.load(as: UInt.self)
        guard let kindWord = memory.readMetadata(metadata, count: 8) else { return }
        let kind = kindWord.load(as: UInt.self)
        let captureWork = Work(
            base: work.base, plan: work.plan, owner: work.owner, prefix: work.prefix, origin: .captured, closure: code,
            hops: work.hops)
        switch kind {
        case 0x400:
            // A closure's context: its captures, laid out as its capture descriptor says. The
            // compiler emits a context's metadata in the image; a word naming any other address
            // is not a context's (read from storage freed meanwhile, or a non-escaping closure's
            // context on the stack).
            guard map.isImage(metadata, length: 24),
                let metadataPointer = UnsafeRawPointer(bitPattern: metadata)
            else { return }
            let descriptor = CaptureDescriptor.of(metadata: metadataPointer, map: map)
            let layout: CaptureLayout
            if let fixed = descriptor.fixedLayout {
                layout = fixed
            } else {
                // Only a generic context's arguments are read before its captures.
                guard let arguments = memory.read(context, count: descriptor.argumentBytes) else { return }
                layout = captureLayout(descriptor, metadata: metadataPointer, context: arguments, trusted: false)
            }
            if let reason = layout.unreadReason {
                limits.insert("closure contexts with captures of a type that cannot be resolved")
                noteUnread(owner: work.owner, in: path, why: reason)
            }
            guard !layout.captures.isEmpty,
                let (base, owner, prefix) = enter(
                    storage: context, byteCount: layout.byteCount, type: "closure context", from: captureWork,
                    path: "capture")
            else { return }
            let label = owner == work.owner ? "capture" : prefix
            for capture in layout.captures.reversed() {
                stack.append(
                    Work(
                        base: base + capture.offset, plan: capture.plan, owner: owner,
                        prefix: label.isEmpty ? "capture" : label, origin: .captured, closure: code, hops: work.hops))
            }
        case 0x500:
            box(context, from: captureWork, path: "capture")
        default:
            // An untracked object captured alone: followed like any untracked reference.
            reference(context, from: captureWork, label: "capture")
        }
        _ = path
    }

    /// The capture layout of one context (`context`: its first bytes, at least the descriptor's
    /// `argumentBytes`). `trusted`: the context is held, so the generic arguments it stores are
    /// real metadata; otherwise (a copy that may be stale) each is checked before the runtime
    /// sees it.
    private mutating func captureLayout(
        _ descriptor: CaptureDescriptor, metadata: UnsafeRawPointer, context: UnsafeRawPointer, trusted: Bool
    ) -> CaptureLayout {
        if let fixed = descriptor.fixedLayout { return fixed }
        let map = self.map
        return descriptor.layout(
            metadata: metadata, context: context,
            read: { address, count in memory.readMetadata(address, count: count) },
            isMetadata: { word in trusted ? map.readableBytes(at: word) >= 16 : memory.isUsableType(word) })
    }

    /// Records memory of `owner` that held references the walk could not type (`in`: where,
    /// as a path; `why`: in words for the user). Their targets count as held from outside.
    private mutating func noteUnread(owner: Int, in place: String, why: String) {
        guard unreadSeen.insert(UnreadKey(owner: owner, why: why)).inserted else { return }
        unread.append(UnreadReference(owner: owner, place: place.isEmpty ? "fields" : place, why: why))
    }

    /// A generic heap box (a `var` capture of a generic context): its value's type and offset are
    /// in its metadata (kind 0x500).
    private mutating func box(_ address: UInt, from work: Work, path: String) {
        let position = heldPosition(address, false)
        if position >= 0 {
            // A concrete box whole-process tracking recorded: walked on its own, as a context.
            add(work, to: .tracked(position), kind: .strong, label: path)
            return
        }
        if let node = nodeOfAddress[address] {
            add(work, to: .node(node), kind: .strong, label: path)
            return
        }
        // A box is the one storage that can lead back to itself (a recursive closure kept in the
        // `var` it captures: box → closure context → box, each with one holder, so none becomes
        // a node): walked once, or the walk would go round for ever.
        guard walkedBoxes.insert(address).inserted else { return }
        guard let header = memory.read(address, count: 16),
            let metadata = memory.readMetadata(header.load(as: UInt.self), count: 24)
        else { return }
        let metadataKind = metadata.load(as: UInt.self)
        if metadataKind == 0x400 {
            // A concrete box (a captured `var` of a non-generic type, when the context itself is
            // not recorded): laid out by its capture descriptor, like a context, one capture.
            // Its metadata is the compiler's, in an image (a stale copy's word is refused).
            let metadataWord = header.load(as: UInt.self)
            guard !memory.copies || map.isImage(metadataWord, length: 24),
                let metadataPointer = UnsafeRawPointer(bitPattern: metadataWord)
            else { return }
            let layout = CaptureDescriptor.of(metadata: metadataPointer, map: map).fixedLayout
            guard let layout, !layout.captures.isEmpty,
                let (base, owner, prefix) = enter(
                    storage: address, byteCount: layout.byteCount, type: "box", from: work, path: path)
            else { return }
            for capture in layout.captures.reversed() {
                stack.append(
                    Work(
                        base: base + capture.offset, plan: capture.plan, owner: owner, prefix: prefix,
                        origin: work.origin, closure: work.closure, hops: work.hops))
            }
            return
        }
        guard metadataKind == 0x500 else { return }
        let offset = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
        let boxed = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard memory.isUsableType(boxed), let boxedType = UnsafeRawPointer(bitPattern: boxed) else {
            limits.insert("boxes whose type cannot be read")
            noteUnread(owner: work.owner, in: path, why: "a box whose value's type cannot be checked")
            return
        }
        let type = unsafeBitCast(boxedType, to: Any.Type.self)
        let plan = TypePlan.of(type)
        guard !plan.steps.isEmpty,
            let (base, owner, prefix) = enter(
                storage: address, byteCount: offset + lg_type_size(boxedType), type: "box of \(type)", from: work,
                path: path)
        else { return }
        stack.append(
            Work(
                base: base + offset, plan: plan, owner: owner, prefix: prefix, origin: work.origin,
                closure: work.closure, hops: work.hops))
    }

    private mutating func enumeration(_ value: UnsafeRawPointer, info: EnumInfo, from work: Work, path: String) {
        let metadata = unsafeBitCast(info.metadata.type, to: UnsafeRawPointer.self)
        let tag = Int(lg_enum_tag(value, metadata))
        guard tag < info.cases.count, let payloadType = info.cases[tag].payload?.type else { return }
        let label = info.isOptional ? path : Self.join(path, info.cases[tag].name)
        var payload = value
        if info.isMultiPayload {
            // The tag may sit in the payload's spare bits: project a bitwise copy (no retains).
            let size = max(1, lg_type_size(metadata))
            let copy = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            copy.copyMemory(from: value, byteCount: size)
            lg_enum_project(copy, metadata)
            scratch.append(copy)
            payload = UnsafeRawPointer(copy)
        }
        let plan = TypePlan.of(payloadType)
        guard !plan.steps.isEmpty else { return }
        if info.cases[tag].isIndirect {
            // The payload lives in a heap box (shared by every copy of the value); the offset of
            // its value is in the box's metadata, whatever kind of box the compiler chose.
            let boxWord = payload.load(as: UInt.self)
            guard boxWord != 0 else { return }
            let name = "indirect \(info.metadata.type).\(info.cases[tag].name)"
            if heldPosition(boxWord, false) >= 0 || nodeOfAddress[boxWord] != nil {
                _ = enter(storage: boxWord, byteCount: 16, type: name, from: work, path: label)
                return
            }
            guard let header = memory.read(boxWord, count: 16),
                let boxMetadata = memory.readMetadata(header.load(as: UInt.self), count: 16)
            else { return }
            let offset = Int(boxMetadata.load(fromByteOffset: 8, as: UInt32.self))
            let size = lg_type_size(unsafeBitCast(payloadType, to: UnsafeRawPointer.self))
            guard offset >= 16, offset < 4096,
                let (base, owner, prefix) = enter(
                    storage: boxWord, byteCount: offset + size, type: name, from: work, path: label)
            else { return }
            stack.append(
                Work(
                    base: base + offset, plan: plan, owner: owner, prefix: prefix, origin: work.origin,
                    closure: work.closure, hops: work.hops))
            return
        }
        stack.append(
            Work(
                base: payload, plan: plan, owner: work.owner, prefix: label, origin: work.origin, closure: work.closure,
                hops: work.hops))
    }

    private mutating func existential(_ container: UnsafeRawPointer, from work: Work, path: String) {
        let typeWord = container.load(fromByteOffset: 24, as: UInt.self)
        guard typeWord != 0, let typePointer = UnsafeRawPointer(bitPattern: typeWord) else { return }
        if !memory.isUsableType(typeWord) {
            // A class instance the snapshot holds vouches for its own class.
            let payload = container.load(as: UInt.self)
            guard payload != 0, heldPosition(payload, false) >= 0,
                UnsafeRawPointer(bitPattern: payload)?.load(as: UInt.self) == typeWord
            else {
                limits.insert("existential values of a type that cannot be checked")
                noteUnread(owner: work.owner, in: path, why: "an existential value whose type cannot be checked")
                return
            }
            memory.trust(type: typeWord)
        }
        let type = unsafeBitCast(typePointer, to: Any.Type.self)
        let plan = TypePlan.of(type)
        guard !plan.steps.isEmpty else { return }
        let flags = lg_type_flags(typePointer)
        if flags & 0x0002_0000 == 0 {
            // Stored inline in the container's three words.
            stack.append(
                Work(
                    base: container, plan: plan, owner: work.owner, prefix: path, origin: work.origin,
                    closure: work.closure, hops: work.hops))
            return
        }
        // Out of line: the first word is a heap box, shared by every copy of the existential.
        let boxWord = container.load(as: UInt.self)
        guard boxWord != 0 else { return }
        let alignMask = Int(flags & 0xFF)
        let offset = (16 + alignMask) & ~alignMask
        guard
            let (base, owner, prefix) = enter(
                storage: boxWord, byteCount: offset + lg_type_size(typePointer), type: "box of \(type)", from: work,
                path: path)
        else {
            return
        }
        stack.append(
            Work(
                base: base + offset, plan: plan, owner: owner, prefix: prefix, origin: work.origin,
                closure: work.closure, hops: work.hops))
    }

    private mutating func array(_ storage: UInt, element: TypePlanBox, from work: Work, path: String) {
        // Storage is not held by the snapshot (only its owner is): read as `memory` says.
        guard storage != 0, let header = memory.read(storage, count: CollectionLayout.arrayElementsOffset) else {
            return
        }
        let count = header.load(fromByteOffset: CollectionLayout.arrayCountOffset, as: Int.self)
        guard count > 0 else { return }
        let plan = element.plan
        if let reason = plan.unreadReason {
            limits.insert("elements of a type whose layout cannot be read")
            noteUnread(owner: work.owner, in: "\(path)[…]", why: reason)
        }
        guard !plan.steps.isEmpty else { return }
        let stride = max(1, element.stride)
        let alignment = Int(lg_type_flags(unsafeBitCast(element.type.type, to: UnsafeRawPointer.self)) & 0xFF) + 1
        let start = (CollectionLayout.arrayElementsOffset + alignment - 1) / alignment * alignment
        let (elementBytes, overflow) = count.multipliedReportingOverflow(by: stride)
        guard !overflow, elementBytes <= Int(map.readableBytes(at: storage)) else {
            limits.insert("array storage that does not look like one")
            return
        }
        guard
            let (pointer, owner, prefix) = enter(
                storage: storage, byteCount: start + elementBytes, type: "[\(element.type.type)] storage", from: work,
                path: path)
        else { return }
        let elementWork = Work(
            base: pointer, plan: plan, owner: owner, prefix: prefix, origin: work.origin, closure: work.closure,
            hops: work.hops)
        for index in 0..<count {
            let base = pointer + start + index * stride
            if plan.isSingleReference {
                // The hot case, `[SomeClass]`: no label is built unless something is found.
                let word = base.load(as: UInt.self)
                if word != 0 { reference(word, from: elementWork, label: "\(prefix)[\(index)]") }
            } else {
                stack.append(
                    Work(
                        base: base, plan: plan, owner: owner, prefix: "\(prefix)[\(index)]", origin: work.origin,
                        closure: work.closure, hops: work.hops))
            }
        }
    }

    private mutating func hashed(
        _ storage: UInt, key: TypePlanBox, value: TypePlanBox?, from work: Work, path: String
    ) {
        let bitmap = value == nil ? CollectionLayout.setBitmapOffset : CollectionLayout.dictionaryBitmapOffset
        guard storage != 0, let header = memory.read(storage, count: bitmap) else { return }
        let count = header.load(fromByteOffset: CollectionLayout.hashedCountOffset, as: Int.self)
        let scale = Int(header.load(fromByteOffset: CollectionLayout.hashedScaleOffset, as: Int8.self))
        guard count > 0 else { return }
        let keyPlan = key.plan
        let valuePlan = value?.plan ?? .empty
        guard !keyPlan.steps.isEmpty || !valuePlan.steps.isEmpty else { return }
        guard scale >= 0, scale < 40, count <= 1 << scale else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        // Header and occupancy bitmap in one read (a copy, when copying); the key and value
        // areas follow the bitmap in the same allocation.
        let bitmapBytes = ((1 << scale) + 63) / 64 * 8
        let kind = value == nil ? "Set<\(key.type.type)>" : "[\(key.type.type): \(value!.type.type)]"
        guard
            let (pointer, owner, prefix) = enter(
                storage: storage, byteCount: bitmap + bitmapBytes, type: "\(kind) storage", from: work, path: path)
        else { return }
        guard let buckets = CollectionLayout.occupiedBuckets(storage: pointer, bitmapOffset: bitmap) else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        let keysOffset = value == nil ? CollectionLayout.setElementsOffset : CollectionLayout.dictionaryKeysOffset
        let keyStride = max(1, key.stride)
        let valueStride = max(1, value?.stride ?? 1)
        // The key and value areas up to the last occupied bucket.
        let lastBucket = (buckets.last ?? 0) + 1
        guard
            let keys = memory.read(
                pointer.load(fromByteOffset: keysOffset, as: UInt.self), count: lastBucket * keyStride)
        else {
            limits.insert("hashed storage that does not look like one")
            return
        }
        var values: UnsafeRawPointer?
        if value != nil {
            values = memory.read(
                pointer.load(fromByteOffset: CollectionLayout.dictionaryValuesOffset, as: UInt.self),
                count: lastBucket * valueStride)
            guard values != nil else {
                limits.insert("hashed storage that does not look like one")
                return
            }
        }
        for (ordinal, bucket) in buckets.enumerated() {
            let keyBase = keys + bucket * keyStride
            let name = { [copies = memory.copies] in
                Self.keyName(keyBase, type: key.type.type, ordinal: ordinal, copied: copies)
            }
            if !keyPlan.steps.isEmpty {
                let label = value == nil ? "\(prefix)[\(ordinal)]" : "\(prefix).keys[\(name())]"
                stack.append(
                    Work(
                        base: keyBase, plan: keyPlan, owner: owner, prefix: label, origin: work.origin,
                        closure: work.closure, hops: work.hops))
            }
            if let values, !valuePlan.steps.isEmpty {
                let valueBase = values + bucket * valueStride
                let elementWork = Work(
                    base: valueBase, plan: valuePlan, owner: owner, prefix: prefix, origin: work.origin,
                    closure: work.closure, hops: work.hops)
                if valuePlan.isSingleReference {
                    let word = valueBase.load(as: UInt.self)
                    if word != 0 && (work.hops > 0 || heldPosition(word, true) >= 0) {
                        reference(word, from: elementWork, label: "\(prefix)[\(name())]")
                    }
                } else {
                    stack.append(
                        Work(
                            base: valueBase, plan: valuePlan, owner: owner, prefix: "\(prefix)[\(name())]",
                            origin: work.origin, closure: work.closure, hops: work.hops))
                }
            }
        }
    }

    /// A key as a path shows it, from its type alone: strings quoted (at most 40 characters),
    /// integers as numbers, anything else by its position.
    private static func keyName(_ pointer: UnsafeRawPointer, type: Any.Type, ordinal: Int, copied: Bool) -> String {
        if type == String.self {
            // Copied only when the copy retains nothing: a small string (its bytes are inline) or
            // an immortal one (a literal). A native string's storage is not held by the snapshot.
            // Read from a copy of storage that may be stale, only a small string: its bytes are
            // in the copy, where a literal's pointer could name anything.
            let discriminator = pointer.load(fromByteOffset: 8, as: UInt64.self) >> 60
            guard discriminator & (copied ? 0b0010 : 0b1010) != 0 else { return "#\(ordinal)" }
            let text = pointer.load(as: String.self)
            return "\"\(text.prefix(40))\""
        }
        if type == Int.self { return String(pointer.load(as: Int.self)) }
        return "#\(ordinal)"
    }

    private mutating func add(
        _ work: Work, to target: DiscoveredReference.Target, kind: EdgeKind, label: String,
        origin: EdgeOrigin? = nil, closure: UInt? = nil
    ) {
        found.append(
            DiscoveredReference(
                from: work.owner, to: target, kind: kind, label: label.isEmpty ? "?" : label,
                origin: origin ?? work.origin, closureAddress: closure ?? work.closure))
    }
}
