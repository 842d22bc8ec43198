import CLeakGraphSupport

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
    let trackedCount: Int
    /// The held position of the object at an address (-1: none); the flag tells a strong
    /// reference read from a held object (its object is alive and may be read).
    let heldPosition: (UInt, Bool) -> Int
    var memory: UnheldMemory
    var map: MemoryMap { memory.map }
    let scanClosures: Bool
    /// How many hops through untracked objects a walk follows to find a path back to a tracked
    /// one (a `PassthroughSubject` between a Combine subscription and its subscriber).
    let untrackedHops: Int
    /// Whether strong references to objects whole-process tracking did not record are followed
    /// (full whole-process snapshots, where every recorded object is held: one that is not held
    /// was not recorded).
    let followsUnrecordedObjects: Bool
    /// Whether an object the snapshot does not hold may still be one whole-process tracking
    /// recorded (a snapshot of some objects only: the second look at suspected leaks), so that
    /// the records are asked before it is taken for one they do not have.
    let asksWhetherRecorded: Bool

    // Written by the walk only (its files: HeapWalker*.swift).
    var found: [DiscoveredReference] = []
    // Written by the walk only (its files: HeapWalker*.swift).
    var nodes: [DiscoveredNode] = []
    /// Why part of the heap could not be read (shown in reports: references there count as held
    /// from outside).
    // Written by the walk only (its files: HeapWalker*.swift).
    var limits: Set<String> = []

    /// What the snapshot's heap-local-variable objects (boxes and closure contexts recorded by
    /// whole-process tracking) were reached as, when they were reached as storage: `box of
    /// BigValue`, `indirect List.link`. Their type is otherwise unknown from their metadata.
    // Written by the walk only (its files: HeapWalker*.swift).
    var storageNames: [UInt: String] = [:]

    /// Memory that held references the walk could not type, by owner (see ``UnreadReference``).
    // Written by the walk only (its files: HeapWalker*.swift).
    var unread: [UnreadReference] = []
    /// Words that matched live objects where the type does not say they own them (see
    /// ``CandidateReference``).
    // Written by the walk only (its files: HeapWalker*.swift).
    var candidates: [CandidateReference] = []
    /// Memory whose words were compared because their type could not be read.
    // Written by the walk only (its files: HeapWalker*.swift).
    var regions: [UntypedRegion] = []
    /// Which words compared conservatively looked like objects (see ``looksLikeObject(_:)``).
    var objectLikeWords: [UInt: Bool] = [:]
    /// One record per owner and reason (an array of 20,000 elements of an unreadable type is
    /// one record).
    var unreadSeen: Set<UnreadKey> = []

    /// The plans already said unread for an owner (cheaper than hashing their reasons again for
    /// every element of an array of them).
    var unreadPlans: Set<UnreadPlanKey> = []

    struct UnreadPlanKey: Hashable {
        let owner: Int
        let plan: ObjectIdentifier
    }

    struct UnreadKey: Hashable {
        let owner: Int
        let why: String
    }

    var nodeOfAddress: [UInt: Int] = [:]
    /// The boxes walked so far (see ``box(_:from:path:)``).
    var walkedBoxes: Set<UInt> = []
    var walkableClasses: [UInt: Bool] = [:]
    /// Words of tasks' memory at objects the walk had not reached yet (see `settleTaskWords()`).
    var unsettledTaskWords: [(word: UInt, owner: Int, region: Int32)] = []
    /// Child tasks' parents, by the child's owner position (the parent's address: a task reached
    /// later, or never).
    var taskParents: [Int: UInt] = [:]
    /// The element types of array buffers met as objects (nil: not an array buffer).
    var arrayElementTypes: [UInt: UnsafeRawPointer?] = [:]
    /// Why each Foundation class met is not read (nil: a value class; see
    /// ``foundationUnreadReason(_:key:)``).
    var foundationReasons: [UInt: String?] = [:]
    /// Whether each type met is still loaded (see `HeapObjectKind.isLoaded`).
    var loadedTypes: [UInt: Bool] = [:]
    /// Instance plans by class metadata, without the shared cache's lock.
    var instancePlans: [UInt: TypePlan] = [:]
    var stack: [Work] = []
    /// Bitwise copies of multi-payload enums, freed when the walk ends.
    var scratch: [UnsafeMutableRawPointer] = []

    /// The most untracked objects one snapshot adds.
    static let untrackedNodeLimit = 100_000

    struct Work {
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
        copiesUnheldMemory: Bool = false, followsUnrecordedObjects: Bool = false, asksWhetherRecorded: Bool = false,
        heldPosition: @escaping (UInt, Bool) -> Int
    ) {
        self.followsUnrecordedObjects = followsUnrecordedObjects && copiesUnheldMemory
        self.asksWhetherRecorded = asksWhetherRecorded
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
        // A type whose library was unloaded is never read (its object is a node, unnamed).
        let isLoaded = loadedTypes[key] ?? HeapObjectKind.isLoaded(key, map: map)
        loadedTypes[key] = isLoaded
        guard isLoaded else {
            noteUnread(
                owner: index, in: "",
                why: "an object whose type was unloaded with its library (dlclose): its fields cannot be read")
            return
        }
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
        guard walkable else {
            if let reason = foundationUnreadReason(cls, key: key) { noteUnread(owner: index, in: "", why: reason) }
            return
        }
        let plan: TypePlan
        if let known = instancePlans[key] {
            plan = known
        } else {
            plan = TypePlan.ofInstances(cls)
            instancePlans[key] = plan
            if !plan.complete { limits.insert("fields of \(cls) whose layout cannot be read") }
        }
        if let reason = plan.unreadReason, plan.steps.isEmpty { noteUnread(owner: index, in: "", why: reason) }
        if let tail = plan.tail {
            // A held object: alive, its allocation readable in place.
            self.tail(tail, memory: base, allocationSize: lg_allocation_size(base), owner: index)
        }
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
    mutating func walkContext(_ base: UnsafeRawPointer, metadata: UnsafeRawPointer, index: Int) {
        // A held context's metadata is real (the context is alive), wherever it lives, and so
        // are the generic arguments it stores (written once, when it was made).
        let descriptor = CaptureDescriptor.of(metadata: metadata, map: map)
        let layout = captureLayout(descriptor, metadata: metadata, context: base, trusted: true)
        if let reason = layout.unreadReason {
            limits.insert("closure contexts with captures of a type that cannot be resolved")
            unplacedCaptures(base, from: layout.byteCount, owner: index, why: reason)
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

    /// The words of a held closure context past its placed captures (`from`), compared with the
    /// live objects as an untyped region: a capture there that holds one of them is a candidate
    /// reference, never an edge nobody can see (a context without a capture descriptor, which a
    /// closure handed to Dispatch can have, holds its captures there).
    mutating func unplacedCaptures(_ base: UnsafeRawPointer, from start: Int, owner: Int, why: String) {
        let size = lg_allocation_size(base)
        let first = (start + 7) / 8 * 8
        guard size > first, size <= Self.maximumTailBytes else {
            noteUnread(owner: owner, in: "capture", why: why)
            return
        }
        let region = openRegion(owner: owner, place: "capture", why: why)
        let work = Work(base: base, plan: .empty, owner: owner, prefix: "", origin: .captured, closure: nil, hops: 0)
        for offset in stride(from: first, through: size - 8, by: 8) {
            compare(base.load(fromByteOffset: offset, as: UInt.self), in: region, from: work, label: "capture")
        }
    }

    /// Frees the scratch copies.
    mutating func finish() {
        for buffer in scratch { buffer.deallocate() }
        scratch.removeAll()
        memory.freeCopies()
    }

    /// Walks everything reached from the work stack, then frees the copies made on the way
    /// (nothing found refers into them: references are addresses and labels).
    mutating func drain() {
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
    static func elided(_ prefix: String, _ path: String) -> String {
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

    mutating func perform(_ step: TypePlan.Step, in work: Work) {
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
    mutating func performOther(_ step: TypePlan.Step, in work: Work) {
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
        case .slice(let offset, let path, let element):
            // The slice's buffer: the storage it shares, then where its elements start (inside
            // that storage, when the storage is an array's).
            let storage = work.base.load(fromByteOffset: offset, as: UInt.self)
            let elements = work.base.load(fromByteOffset: offset + 8, as: UInt.self)
            guard storage != 0 else { return }
            guard elements >= storage + UInt(CollectionLayout.arrayElementsOffset) else {
                noteUnread(
                    owner: work.owner, in: Self.join(work.prefix, path),
                    why: "an ArraySlice whose storage is not an array's")
                return
            }
            array(storage, element: element, from: work, path: Self.join(work.prefix, path))
        case .unmanaged(let offset, let path):
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            unmanagedWord(word, from: work, label: Self.join(work.prefix, path))
        case .words(let offset, let count, let path, let why):
            words(offset: offset, count: count, path: path, why: why, in: work)
        case .continuation(let offset, let path):
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            if word != 0 { task(word, from: work, label: Self.join(work.prefix, path)) }
        case .errorBox(let offset, let path):
            let word = work.base.load(fromByteOffset: offset, as: UInt.self)
            if word != 0 { errorBox(word, from: work, path: Self.join(work.prefix, path)) }
        }
    }

    /// A strong reference word: an edge to a tracked object, or (within the hop budget) a node
    /// for an untracked one, walked in turn.
    mutating func reference(_ word: UInt, from work: Work, label: String) {
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
        guard metadata != 0, map.holdsWord(at: metadata),
            let metadataPointer = UnsafeRawPointer(bitPattern: metadata)
        else { return }
        let kind = metadataPointer.load(as: UInt.self)
        if kind == HeapObjectKind.taskMetadataKind {
            task(word, from: work, label: label)
            return
        }
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
        guard walkable else {
            if HeapObjectKind.isClassMetadata(metadataPointer, map: map) {
                foundationNode(word, cls, key: classKey, retainCount: nil, from: work, label: label)
            }
            return
        }
        let node = addNode(word, type: displayTypeName(cls))
        // An object the snapshot does not hold, read in place like its retain count: the inline
        // word only (a side table may be freed by another thread meanwhile; then unknown).
        nodes[node].weakAndUnownedReferences = UnsafeRawPointer(bitPattern: word).flatMap(
            inlineWeakAndUnownedReferences)
        add(work, to: .node(node), kind: .strong, label: label)
        let plan = TypePlan.ofInstances(cls)
        if let tail = plan.tail { unheldTail(tail, at: word, atLeast: tail.offset, owner: trackedCount + node) }
        guard !plan.steps.isEmpty else { return }
        stack.append(
            Work(
                base: pointer, plan: plan, owner: trackedCount + node, prefix: "", origin: .reflected, closure: nil,
                hops: work.hops - 1))
    }

    /// Foundation's classes on Linux may be toll-free bridged Core Foundation objects whose memory
    /// does not follow their Swift field metadata: they are not walked (their references count
    /// as held from outside, and are said unread: ``foundationUnreadReason(_:)``). Walked: a
    /// class of the user's that inherits `NSObject` (which has no stored properties, so that Core
    /// Foundation's layout can sit under it), and the collections swift-corelibs-foundation
    /// implements in Swift (`NSArray`'s `_storage` is a Swift array; a Swift object in one is
    /// boxed in a `__SwiftValue`) when the object's class is one of them — Core Foundation makes its own as `_NSCF…` classes, never walked.
    static func isWalkable(_ cls: AnyClass) -> Bool {
        var current: AnyClass? = cls
        while let type = current {
            if isFoundationClass(type) && !swiftFoundationClasses.contains(qualifiedTypeName(type)) { return false }
            current = _getSuperclass(type)
        }
        return true
    }

    /// Foundation's classes whose instances made in Swift keep their Swift stored properties.
    private static let swiftFoundationClasses: Set<String> = {
        #if os(Linux)
            [
                "Foundation.NSObject", "Foundation.NSArray", "Foundation.NSMutableArray", "Foundation.NSDictionary",
                "Foundation.NSMutableDictionary", "Foundation.NSSet", "Foundation.NSMutableSet",
                "Foundation.NSCountedSet", "Foundation.NSOrderedSet", "Foundation.NSMutableOrderedSet",
                // The box a Swift value (a Swift class's instance too) gets in a Foundation collection.
                "Foundation.__SwiftValue",
            ]
        #else
            []  // Objective-C classes: their instance variables are not Swift fields.
        #endif
    }()

    private static func isFoundationClass(_ type: AnyClass) -> Bool {
        let name = qualifiedTypeName(type)
        return name.hasPrefix("Foundation.") || name.hasPrefix("CoreFoundation.") || name.hasPrefix("__NS")
            || name.hasPrefix("_NS")
    }

    /// Why the references of an object of a class that is not walked are not read (per class,
    /// `key` its metadata: worked out once); nil for Foundation's value classes, which hold no
    /// object references (strings, data, numbers, dates, URLs, …).
    mutating func foundationUnreadReason(_ cls: AnyClass, key: UInt) -> String? {
        if let known = foundationReasons[key] { return known }
        let reason = Self.foundationUnreadReason(qualifiedTypeName(cls), displayName: displayTypeName(cls))
        foundationReasons[key] = reason
        return reason
    }

    private static let foundationValueClasses = [
        "String", "MutableString", "Data", "MutableData", "Number", "Value", "Date", "URL", "UUID", "Locale",
        "TimeZone", "Calendar", "CharacterSet", "MutableCharacterSet", "RegularExpression", "Decimal",
        "IndexSet", "MutableIndexSet", "CFString", "CFData", "CFNumber", "CFBoolean", "Null", "Error",
    ]

    private static func foundationUnreadReason(_ name: String, displayName: String) -> String? {
        let bare = name.split(separator: ".").last.map { $0.drop { $0 == "_" } } ?? ""
        for value in foundationValueClasses
        where bare == "NS\(value)" || bare.hasPrefix("NSCF\(value)") || bare == value {
            return nil
        }
        return "a Foundation object (\(displayName)): its storage may be Core Foundation's, not its Swift fields"
    }

    /// A Foundation object the snapshot does not hold and does not walk: a node that says its
    /// memory was not read (none for a value class). `retainCount` nil: read from the runtime.
    mutating func foundationNode(
        _ address: UInt, _ cls: AnyClass, key: UInt, retainCount: Int?, from work: Work, label: String
    ) {
        guard let reason = foundationUnreadReason(cls, key: key) else { return }
        let node = addNode(address, type: displayTypeName(cls), retainCount: retainCount)
        add(work, to: .node(node), kind: .strong, label: label)
        noteUnread(owner: trackedCount + node, in: "", why: reason)
    }

    mutating func addNode(_ address: UInt, type: String, retainCount: Int? = nil) -> Int {
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
    mutating func enter(
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

    /// Records memory of `owner` that held references the walk could not type (`in`: where,
    /// as a path; `why`: in words for the user). Their targets count as held from outside.
    mutating func noteUnread(owner: Int, in place: String, why: String) {
        guard unreadSeen.insert(UnreadKey(owner: owner, why: why)).inserted else { return }
        unread.append(UnreadReference(owner: owner, place: place.isEmpty ? "fields" : place, why: why))
    }

    mutating func add(
        _ work: Work, to target: DiscoveredReference.Target, kind: EdgeKind, label: String,
        origin: EdgeOrigin? = nil, closure: UInt? = nil
    ) {
        found.append(
            DiscoveredReference(
                from: work.owner, to: target, kind: kind, label: label.isEmpty ? "?" : label,
                origin: origin ?? work.origin, closureAddress: closure ?? work.closure))
    }
}
