import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-process records and type names: what a snapshot of every object needs beyond the
/// registry's own.
extension Snapshotter {
    /// Puts the held objects (and their retain counts) in id order, renumbering the declared
    /// edges: one sort of packed integers, then one move of each object.
    static func sortByID(_ held: inout [Held], _ retainCounts: inout [Int], _ rawEdges: inout [RawEdge]) {
        // Ids below 2^40 and positions below 2^24 pack into one word; past that, a plain sort.
        let order: [Int]
        if held.count < 1 << 24, held.allSatisfy({ $0.entry.id < 1 << 40 }) {
            var packed = held.indices.map { UInt64(held[$0].entry.id) << 24 | UInt64($0) }
            packed.sort()
            order = packed.map { Int($0 & 0xFF_FFFF) }
        } else {
            order = held.indices.sorted { held[$0].entry.id < held[$1].entry.id }
        }
        var newPosition = [Int](repeating: 0, count: held.count)
        for (position, old) in order.enumerated() { newPosition[old] = position }
        held = order.map { held[$0] }
        retainCounts = order.map { retainCounts[$0] }
        for index in rawEdges.indices {
            let edge = rawEdges[index]
            rawEdges[index] = RawEdge(
                from: newPosition[edge.from], to: newPosition[edge.to], kind: edge.kind, label: edge.label,
                count: edge.count, site: edge.site)
        }
    }

    /// Takes a hold on every object whole-process tracking recorded, except `excluded` (sorted),
    /// and appends each with its retain count (the hold subtracted). LeakGraph's own objects
    /// (its registry, caches, locks) are left out: their holds are returned, for the caller to
    /// release once it has left every lock.
    static func holdProcessObjects(
        excluding excluded: [UInt], only: [UInt64]?, map: MemoryMap, into held: inout [Held],
        retainCounts: inout [Int]
    ) -> [UInt] {
        var buffer: UnsafeMutablePointer<lg_process_object>?
        let count = excluded.withUnsafeBufferPointer { excluded in
            guard let only else { return lg_process_take_holds(excluded.baseAddress, excluded.count, &buffer) }
            return only.withUnsafeBufferPointer {
                lg_process_take_holds_of(excluded.baseAddress, excluded.count, $0.baseAddress, $0.count, &buffer)
            }
        }
        guard let buffer else { return [] }
        defer { lg_process_free(buffer) }
        var own: [UInt] = []
        var ownTypes: [UInt: Bool] = ownTypeCache.withLock { $0 }
        let knownTypes = ownTypes.count
        // Allocation times are on the monotonic clock: moved onto the wall clock the registry uses.
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &monotonic)
        let monotonicNow = UInt64(monotonic.tv_sec) &* 1_000_000_000 &+ UInt64(monotonic.tv_nsec)
        let wallNow = coarseWallClockNanoseconds()
        held.reserveCapacity(held.count + count)
        retainCounts.reserveCapacity(retainCounts.count + count)
        // Each type once per snapshot (one lookup per object): LeakGraph's own, the program's, or
        // unloaded with its library (`dlclose`) while its objects live — never read. Whether a
        // type is LeakGraph's is kept across snapshots; whether it is loaded is not.
        enum Kind { case own, program, unloaded }
        var kinds: [UInt: Kind] = [:]
        for record in UnsafeBufferPointer(start: buffer, count: count) {
            let kind: Kind
            if let known = kinds[record.metadata] {
                kind = known
            } else if !HeapObjectKind.isLoaded(record.metadata, map: map) {
                kind = .unloaded
                kinds[record.metadata] = kind
            } else {
                let isOwn = ownTypes[record.metadata] ?? isLeakGraphType(record.metadata)
                ownTypes[record.metadata] = isOwn
                kind = isOwn ? .own : .program
                kinds[record.metadata] = kind
            }
            if kind == .own {
                own.append(record.address)
                continue
            }
            let age = monotonicNow > record.nanoseconds ? monotonicNow - record.nanoseconds : 0
            let entry = ObjectSlot(
                address: record.address, metadata: kind == .unloaded ? unloadedTypeMetadata : record.metadata,
                id: record.id,
                time: wallNow > age ? wallNow - age : 0, stack: record.stack >= 0 ? -2 - record.stack : -1,
                scope: record.scope)
            let pointer = UnsafeMutableRawPointer(bitPattern: record.address)!
            retainCounts.append(runtimeRetainCount(pointer) - 1)
            var object = Held(address: record.address, entry: entry, label: nil, isRecordedProcessWide: true)
            object.weakAndUnowned = runtimeWeakAndUnownedReferences(pointer)
            held.append(object)
        }
        if ownTypes.count != knownTypes {
            let final = ownTypes
            ownTypeCache.withLock { $0.merge(final) { old, _ in old } }
        }
        return own
    }

    /// Whether objects of this metadata are LeakGraph's own bookkeeping (a class of the core
    /// module): they are never part of the program's graph.
    static let ownTypeCache = Locked<[UInt: Bool]>([:], heldAcrossFork: true)

    static func isLeakGraphType(_ metadata: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata),
            HeapObjectKind(metadata: pointer) == .classInstance
        else { return false }
        return qualifiedTypeName(unsafeBitCast(pointer, to: AnyObject.Type.self)).hasPrefix("LeakGraph.")
    }

    /// The frames of a stack recorded by whole-process tracking (`key` is `-2 - its id`).
    static func processStack(_ key: Int32) -> [UInt] {
        guard key <= -2 else { return [] }
        return [UInt](unsafeUninitializedCapacity: StackCaptureMode.maximumDepth) { buffer, count in
            count = Int(lg_process_stack_frames(-2 - key, buffer.baseAddress, Int32(buffer.count)))
        }
    }

    /// The class metadata of each of `names`, as snapshots of this process named types, where
    /// exactly one class has that name (two of one name, in two modules or nested in two types,
    /// are not told apart by name). One pass over the names known.
    static func classMetadata(named names: Set<String>, map: MemoryMap) -> [String: UInt] {
        let known = typeNames.withLock { $0 }
        var found: [String: UInt] = [:]
        var ambiguous: Set<String> = []
        for (pointer, name) in known where names.contains(name) {
            guard let metadata = UnsafeRawPointer(bitPattern: pointer),
                HeapObjectKind.isClassMetadata(metadata, map: map)
            else { continue }
            if found.updateValue(pointer, forKey: name) != nil { ambiguous.insert(name) }
        }
        for name in ambiguous { found[name] = nil }
        return found
    }

    /// The names snapshots give the types of `metadata` (cached).
    static func typeNames(for metadata: [UInt]) -> [String] {
        var local: [UInt: String] = typeNames.withLock { $0 }
        var added = false
        // Objects come in runs and alternations of a few types: the last two answers are
        // checked before hashing (a lookup per object was a tenth of a million-object snapshot).
        var recent: [(pointer: UInt, name: String)] = [(0, "?"), (0, "?")]
        let names = metadata.map { pointer -> String in
            if pointer == recent[0].pointer { return recent[0].name }
            if pointer == recent[1].pointer {
                recent.swapAt(0, 1)
                return recent[0].name
            }
            let name = typeName(pointer, in: &local, added: &added)
            recent[1] = recent[0]
            recent[0] = (pointer, name)
            return name
        }
        if added {
            let final = local
            typeNames.withLock { $0.merge(final) { old, _ in old } }
        }
        return names
    }

    /// The name of objects of class (or box) metadata `pointer`, cached in `local`.
    /// What a record's metadata reads as when its type was unloaded (see `HeapObjectKind.isLoaded`).
    static let unloadedTypeMetadata: UInt = 1

    static func typeName(_ pointer: UInt, in local: inout [UInt: String], added: inout Bool) -> String {
        if pointer == unloadedTypeMetadata { return HeapObjectKind.unloadedTypeName }
        guard pointer != 0, let metadata = UnsafeRawPointer(bitPattern: pointer) else { return "?" }
        if let name = local[pointer] { return name }
        let name: String
        switch HeapObjectKind(metadata: metadata) {
        case .classInstance: name = displayTypeName(unsafeBitCast(metadata, to: AnyObject.Type.self))
        case .heapLocalVariable: name = Symbolicator.closureContextType
        case .other: name = "heap object"
        }
        local[pointer] = name
        added = true
        return name
    }

    struct Pair: Hashable {
        let from: Int
        let to: Int
    }
}
