import CLeakGraphSupport

/// One live object's bookkeeping (56 bytes; its label, if any, is kept apart).
struct ObjectSlot {
    /// The object's address; 0 while the slot is free.
    var address: UInt = 0
    /// The object's class metadata, turned into a type name only when a snapshot is exported.
    var metadata: UInt = 0
    var id: UInt64 = 0
    /// Allocation time, nanoseconds since the Unix epoch (coarse clock: a few milliseconds).
    var time: UInt64 = 0
    var stack: Int32 = -1
    var firstOut: Int32 = -1
    var firstIn: Int32 = -1
    var scope: UInt32 = 0
    var isExternal = false
    var state: UInt8 = 0
    /// Whether `edgeIndexes` indexes this object's out-edges (it has many: a subject with many
    /// observers, a big `DisposeBag`, `concat` over many sources).
    var hasEdgeIndex = false
    /// Where the object's label is in `objectLabelTexts`, -1 without one (most objects). An index
    /// rather than a dictionary keyed by slot: a snapshot of 500,000 labelled objects spent 0.07 s
    /// hashing slots; last, so the slot stays 56 bytes.
    var labelIndex: Int32 = -1
}

/// An out-edge's identity within its owner: what adding the same reference again counts into.
struct OutEdgeKey: Hashable {
    var to: Int32
    var label: Int32
    var kind: UInt8
}

/// One declared edge (40 bytes). Out- and in-lists are intrusive doubly linked lists through the
/// edge table, so removing every edge of a dying object touches only its own edges.
struct EdgeSlot {
    var from: Int32
    var to: Int32
    var label: Int32
    var site: Int32
    var nextOut: Int32 = -1
    var prevOut: Int32 = -1
    var nextIn: Int32 = -1
    var prevIn: Int32 = -1
    var count: UInt32 = 1
    var kind: UInt8
}

/// Everything the registry knows, guarded by `Registry.state`.
struct RegistryState {
    // The slots and free lists are `SlotTable`s (below), mutated in place without a uniqueness
    // check; this state is reached only `inout` under the registry's lock, never copied. Private:
    // other files read slots through the accessors under "Reading slots".
    private var objects = SlotTable<ObjectSlot>()
    private var freeObjects = SlotTable<Int32>()
    var liveCount = 0
    /// The id the next object will get: one counter for tracked objects and whole-process
    /// records (``lg_take_object_id``), so ids follow allocation order across both.
    var nextID: UInt64 { lg_peek_object_id() }
    /// Object labels, by ``ObjectSlot/labelIndex``; freed places are reused.
    var objectLabelTexts: [String] = []
    private var freeLabelIndexes = SlotTable<Int32>()
    var externals: [UInt: Int32] = [:]
    var weakReferences: [Int32: WeakReference] = [:]

    private var edges = SlotTable<EdgeSlot>()
    private var freeEdges = SlotTable<Int32>()
    var liveEdgeCount = 0
    /// Out-edges by key, for owners with more than ``edgeIndexThreshold`` of them: adding and
    /// removing an edge is then O(1) whatever the owner's out-degree (a linked-list scan for
    /// the few-edge owners that are nearly all of them, which is faster than hashing).
    var edgeIndexes: [Int32: [OutEdgeKey: Int32]] = [:]
    static let edgeIndexThreshold = 16

    var labels: [String] = []
    var labelIDs: [String: Int32] = [:]

    var stacks = StackTable(capacity: RegistryState.defaultStackCapacity)
    /// What holds a tracked object from outside the graph, as its code said
    /// (`TrackedObject.setOutsideHolder(_:)`), by slot.
    var outsideHolders: [Int32: String] = [:]
    var warnedStackCapacity = false

    static let defaultStackCapacity = 200_000

    // MARK: Reading slots

    /// Object slots in the table, free ones included (their address is 0).
    var objectSlotCount: Int { objects.count }

    /// The object slot `slot` (`0 ..< objectSlotCount`).
    func object(inSlot slot: Int) -> ObjectSlot { objects[slot] }

    /// Edge slots in the table, free ones included (their `from` is -1).
    var edgeSlotCount: Int { edges.count }

    /// The edge slot `index` (`0 ..< edgeSlotCount`).
    func edge(inSlot index: Int) -> EdgeSlot { edges[index] }

    /// The id of the live object at `address`, if any (a scan).
    func objectID(at address: UInt) -> UInt64? {
        for slot in objects.indices where objects[slot].address == address { return objects[slot].id }
        return nil
    }

    /// Sets the lifecycle state code of the object in `slot`.
    mutating func setStateCode(_ code: UInt8, slot: Int32) { objects[Int(slot)].state = code }

    /// Gives the object in `slot` `label` (nil: none); returns the label it had, for the caller to
    /// drop after unlocking.
    mutating func replaceLabel(ofSlot slot: Int32, with label: String?) -> String? {
        let index = objects[Int(slot)].labelIndex
        let old = index >= 0 ? takeLabel(at: index) : nil
        objects[Int(slot)].labelIndex = label.map { storeLabel($0) } ?? -1
        return old
    }

    // MARK: Objects

    func isLive(slot: Int32, address: UInt) -> Bool {
        slot >= 0 && Int(slot) < objects.count && objects[Int(slot)].address == address
    }

    /// Registers a `TrackedObject` (the hot path: no weak reference to keep).
    @inline(__always)
    mutating func addTrackedObject(
        address: UInt, metadata: UInt, label: String?, stack: UnsafeBufferPointer<UInt>?, scope: UInt32, time: UInt64,
        stateCode: UInt8 = 0, internedStack: Int32 = -1
    ) -> Int32 {
        let stackID = stack.flatMap { $0.isEmpty ? nil : internStack($0) } ?? internedStack
        let labelIndex = label.map { storeLabel($0) } ?? -1
        let entry = ObjectSlot(
            address: address, metadata: metadata, id: lg_take_object_id(), time: time, stack: stackID, scope: scope,
            state: stateCode, labelIndex: labelIndex)
        liveCount += 1
        let slot: Int32
        if !freeObjects.isEmpty {
            slot = freeObjects.removeLast()
            objects[Int(slot)] = entry
        } else {
            slot = Int32(objects.count)
            objects.append(entry)
        }
        return slot
    }

    /// Registers an object tracked through `LeakGraph.track`, held weakly.
    mutating func addExternalObject(
        address: UInt, metadata: UInt, label: String?, stack: UnsafeBufferPointer<UInt>?, scope: UInt32, time: UInt64,
        reference: WeakReference
    ) -> Int32 {
        let slot = addTrackedObject(
            address: address, metadata: metadata, label: label, stack: stack, scope: scope, time: time)
        objects[Int(slot)].isExternal = true
        externals[address] = slot
        weakReferences[slot] = reference
        return slot
    }

    /// Frees `slot` and every edge from or to it. Returns the label for the caller to drop after
    /// unlocking.
    mutating func removeObject(slot: Int32) -> String? {
        // Nearly always empty: one check per removal.
        if !outsideHolders.isEmpty { outsideHolders.removeValue(forKey: slot) }
        // Most objects die with no edges left: the edge table is not touched.
        if objects[Int(slot)].firstOut >= 0 || objects[Int(slot)].firstIn >= 0 {
            removeEdges(of: slot)
        }
        let labelIndex = objects[Int(slot)].labelIndex
        if objects[Int(slot)].hasEdgeIndex { edgeIndexes.removeValue(forKey: slot) }
        objects[Int(slot)] = ObjectSlot()
        freeObjects.append(slot)
        liveCount -= 1
        return labelIndex >= 0 ? takeLabel(at: labelIndex) : nil
    }

    /// Frees every edge from or to `slot`: each detached edge leaves the head of its list.
    private mutating func removeEdges(of slot: Int32) {
        let (edges, objects) = (edges.mutableBuffer, objects.mutableBuffer)
        while objects[Int(slot)].firstOut >= 0 {
            Self.detach(objects[Int(slot)].firstOut, edges, objects, &freeEdges, &edgeIndexes, &liveEdgeCount)
        }
        while objects[Int(slot)].firstIn >= 0 {
            Self.detach(objects[Int(slot)].firstIn, edges, objects, &freeEdges, &edgeIndexes, &liveEdgeCount)
        }
    }

    /// Stores a label and returns its index in `objectLabelTexts`.
    mutating func storeLabel(_ label: String) -> Int32 {
        if !freeLabelIndexes.isEmpty {
            let index = freeLabelIndexes.removeLast()
            objectLabelTexts[Int(index)] = label
            return index
        }
        objectLabelTexts.append(label)
        return Int32(objectLabelTexts.count - 1)
    }

    /// Frees the label at `index` and returns it, for the caller to drop after unlocking.
    mutating func takeLabel(at index: Int32) -> String {
        let label = objectLabelTexts[Int(index)]
        objectLabelTexts[Int(index)] = ""
        freeLabelIndexes.append(index)
        return label
    }

    /// The label of the object in `slot`, if any.
    func label(ofSlot slot: Int) -> String? {
        let index = objects[slot].labelIndex
        return index >= 0 ? objectLabelTexts[Int(index)] : nil
    }

    mutating func removeExternal(slot: Int32) -> WeakReference? {
        let address = objects[Int(slot)].address
        guard address != 0 else { return nil }
        externals.removeValue(forKey: address)
        _ = removeObject(slot: slot)
        return weakReferences.removeValue(forKey: slot)
    }

    mutating func internStack(_ stack: UnsafeBufferPointer<UInt>) -> Int32? {
        if let id = stacks.intern(stack) { return id }
        if !warnedStackCapacity {
            warnedStackCapacity = true
            warn(
                "the stack table is full (\(stacks.capacity) distinct stacks); new stacks are not recorded "
                    + "(raise LeakGraph.stackTableCapacity)")
        }
        return nil
    }

    // MARK: Edges

    mutating func internLabel(_ label: String) -> Int32 {
        if let id = labelIDs[label] { return id }
        let id = Int32(labels.count)
        labels.append(label)
        labelIDs[label] = id
        return id
    }

    mutating func addEdge(from: Int32, to: Int32, kind: UInt8, label: Int32, site: Int32) {
        let key = OutEdgeKey(to: to, label: label, kind: kind)
        var scanned = 0
        if objects[Int(from)].hasEdgeIndex {
            if let existing = edgeIndexes[from]?[key] {
                edges[Int(existing)].count += 1
                return
            }
        } else {
            var edge = objects[Int(from)].firstOut
            while edge >= 0 {
                let existing = edges[Int(edge)]
                if existing.to == to && existing.label == label && existing.kind == kind {
                    edges[Int(edge)].count += 1
                    return
                }
                edge = existing.nextOut
                scanned += 1
            }
        }
        let index: Int32
        if !freeEdges.isEmpty {
            index = freeEdges.removeLast()
        } else {
            index = Int32(edges.count)
            edges.append(EdgeSlot(from: -1, to: -1, label: 0, site: -1, kind: 0))
        }
        let nextOut = objects[Int(from)].firstOut
        let nextIn = objects[Int(to)].firstIn
        edges[Int(index)] = EdgeSlot(
            from: from, to: to, label: label, site: site, nextOut: nextOut, nextIn: nextIn, kind: kind)
        if nextOut >= 0 { edges[Int(nextOut)].prevOut = index }
        if nextIn >= 0 { edges[Int(nextIn)].prevIn = index }
        objects[Int(from)].firstOut = index
        objects[Int(to)].firstIn = index
        liveEdgeCount += 1
        if objects[Int(from)].hasEdgeIndex {
            edgeIndexes[from, default: [:]][key] = index
        } else if scanned >= Self.edgeIndexThreshold {
            buildEdgeIndex(of: from)
        }
    }

    /// Indexes the out-edges of an owner that has many.
    private mutating func buildEdgeIndex(of owner: Int32) {
        var index: [OutEdgeKey: Int32] = [:]
        var edge = objects[Int(owner)].firstOut
        while edge >= 0 {
            let existing = edges[Int(edge)]
            index[OutEdgeKey(to: existing.to, label: existing.label, kind: existing.kind)] = edge
            edge = existing.nextOut
        }
        edgeIndexes[owner] = index
        objects[Int(owner)].hasEdgeIndex = true
    }

    /// Removes one reference `from —label→ to`. Returns whether one existed.
    mutating func removeEdge(from: Int32, to: Int32, label: Int32) -> Bool {
        if objects[Int(from)].hasEdgeIndex {
            // Any kind, strong first: the same order of preference a scan has for the usual case.
            for kind: UInt8 in 0...3 {
                guard let edge = edgeIndexes[from]?[OutEdgeKey(to: to, label: label, kind: kind)] else { continue }
                release(edge)
                return true
            }
            return false
        }
        var edge = objects[Int(from)].firstOut
        while edge >= 0 {
            let existing = edges[Int(edge)]
            if existing.to == to && existing.label == label {
                release(edge)
                return true
            }
            edge = existing.nextOut
        }
        return false
    }

    /// Drops one reference of `edge`, the edge itself when it was the last.
    private mutating func release(_ edge: Int32) {
        if edges[Int(edge)].count > 1 {
            edges[Int(edge)].count -= 1
        } else {
            Self.detach(edge, edges.mutableBuffer, objects.mutableBuffer, &freeEdges, &edgeIndexes, &liveEdgeCount)
        }
    }

    /// Removes every out-edge of `from` labelled `label` or `otherLabel` (the same label twice
    /// for one), in one pass over its out-list.
    mutating func removeOutEdges(of from: Int32, label: Int32, or otherLabel: Int32? = nil) {
        let otherLabel = otherLabel ?? label
        let (edges, objects) = (edges.mutableBuffer, objects.mutableBuffer)
        var edge = objects[Int(from)].firstOut
        while edge >= 0 {
            let next = edges[Int(edge)].nextOut
            if edges[Int(edge)].label == label || edges[Int(edge)].label == otherLabel {
                Self.detach(edge, edges, objects, &freeEdges, &edgeIndexes, &liveEdgeCount)
            }
            edge = next
        }
    }

    /// Unlinks `edge` from its owner's out-list and its target's in-list and frees it. It works
    /// on the tables' buffers (nothing is appended to `edges` or `objects` meanwhile: only to
    /// `freeEdges`, whose storage is its own); slots and edge indices come from the
    /// lists themselves, so they are in bounds.
    private static func detach(
        _ edge: Int32, _ edges: UnsafeMutableBufferPointer<EdgeSlot>, _ objects: UnsafeMutableBufferPointer<ObjectSlot>,
        _ freeEdges: inout SlotTable<Int32>, _ edgeIndexes: inout [Int32: [OutEdgeKey: Int32]],
        _ liveEdgeCount: inout Int
    ) {
        let e = edges[Int(edge)]
        if e.prevOut >= 0 {
            edges[Int(e.prevOut)].nextOut = e.nextOut
        } else {
            objects[Int(e.from)].firstOut = e.nextOut
        }
        if e.nextOut >= 0 { edges[Int(e.nextOut)].prevOut = e.prevOut }
        if e.prevIn >= 0 { edges[Int(e.prevIn)].nextIn = e.nextIn } else { objects[Int(e.to)].firstIn = e.nextIn }
        if e.nextIn >= 0 { edges[Int(e.nextIn)].prevIn = e.prevIn }
        if objects[Int(e.from)].hasEdgeIndex {
            edgeIndexes[e.from]?[OutEdgeKey(to: e.to, label: e.label, kind: e.kind)] = nil
        }
        edges[Int(edge)].from = -1
        freeEdges.append(edge)
        liveEdgeCount -= 1
    }

    /// Approximate bytes held by the registry's tables.
    var byteCount: Int {
        objects.capacity * MemoryLayout<ObjectSlot>.stride + freeObjects.capacity * 4
            + edges.capacity * MemoryLayout<EdgeSlot>.stride + freeEdges.capacity * 4 + stacks.byteCount
            + objectLabelTexts.capacity * 16 + freeLabelIndexes.capacity * 4 + externals.capacity * 12 + weakReferences
            .capacity * 12
            + edgeIndexes.values.reduce(0) { $0 + $1.capacity * 20 }
    }
}

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
/// Its storage is never freed (no `deinit`: a table is not a class, and is never copied): the
/// one owner, the registry, lives as long as the process (`Registry.shared`); a table made
/// elsewhere (a test's) leaks its storage. The subscript checks positions against the count, as
/// an array's does; `mutableBuffer`'s are unchecked in a release build, as an array's unsafe
/// buffer's are.
///
/// In this file, with the state, and reached from other files only through the state's
/// non-generic accessors: a debug build compiles LeakGraph optimised but file by file, and a
/// generic type's code is specialised only in the file that holds it. Used from other files, every
/// snapshot called the generic subscript through the type's metadata (looked up each time), and
/// this package's test suite took twice as long.
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

extension SlotTable {
    /// The positions of the records. (Not a `Collection`: iterating one, or making an array of
    /// it, would copy the table, whose copies share its storage.)
    var indices: Range<Int> { 0..<count }
}

// @unchecked: the storage is a pointer, which is not `Sendable`. Safe because a table is reached
// only through its owner's lock (the registry's state, handed to the lock once and only ever
// reached `inout` under it), and never copied: no two threads can reach one storage unguarded.
extension SlotTable: @unchecked Sendable {}
