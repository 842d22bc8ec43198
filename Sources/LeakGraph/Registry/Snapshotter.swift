import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Takes a consistent ``GraphSnapshot`` out of the registry.
///
/// Under the lock it only takes hold of each live object with `swift_tryRetain` (an object that
/// is already deinitialising is skipped: it is dying, not alive) and copies the bookkeeping.
/// Retain counts, reflection and closure scanning happen after unlocking, while the snapshot's
/// own +1 keeps every object alive; the objects are released last, outside the lock, so a
/// `deinit` they trigger can re-enter the registry freely.
enum Snapshotter {
    private struct Held {
        let address: UInt
        let entry: ObjectSlot
        let label: String?
        var isRecordedProcessWide = false
        /// The registry slot of a tracked object (`TrackedObject` or external), -1 for a
        /// process-wide record.
        var slot: Int32 = -1
        /// `weak` and `unowned` references to the object, the registry's own excluded.
        var weakAndUnowned = 0
    }

    private struct RawEdge {
        let from: Int
        let to: Int
        let kind: UInt8
        let label: Int32
        let count: Int
        let site: Int32
    }

    private static let typeNames = Locked<[UInt: String]>([:], heldAcrossFork: true)

    /// Only one snapshot at a time holds objects, so that its own +1 is the only one to
    /// subtract from the retain counts it reads.
    private static let holdingGate = Locked(0, heldAcrossFork: true)  // the count of holding snapshots taken
    /// Holds that snapshots have taken and not yet let go of: other snapshots subtract them
    /// from the retain counts they read.
    static let releasing = Locked(HoldLedger(), heldAcrossFork: true)

    /// How many snapshots are releasing their holds right now (on any thread).
    private static let releasesInFlight = Atomic<Int>(0)

    /// In a forked child: the snapshots other threads were releasing at the moment of the fork
    /// never finish there (those threads do not exist). Their holds stay listed — in the child's
    /// copy of memory they are retains nobody will release, and later snapshots subtract them — but
    /// nobody waits for them any more (each snapshot in the child waited 10 s for them).
    /// Finishes this type's lazy globals before a fork (see `beforeFork`).
    static func prepareForFork() {
        _ = typeNames
        _ = holdingGate
        _ = releasing
        _ = ownTypeCache
    }

    /// A batch unlisted but not yet released at the fork stays retained in the child with nothing
    /// listed: its objects read one too high there (a safe "retained"), and nobody waits for it.
    static func forgetReleasesOfOtherThreads() {
        releasesInFlight.store(0, ordering: .sequentiallyConsistent)
        batchesReleased.store(
            batchesUnlisted.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }
    /// Batches of holds whose unlisting has begun, and whose release has ended: while they
    /// differ, some hold is unlisted but not yet released, and a retain count read then is one
    /// too high with nothing listed to subtract.
    private static let batchesUnlisted = Atomic<Int>(0)
    private static let batchesReleased = Atomic<Int>(0)

    /// Runs `read` — which reads retain counts and then, in the same registry critical section,
    /// the `releasing` list — when no batch of holds is between unlisting and release, and runs
    /// it again if one began meanwhile. Then every hold that existed while the counts were read
    /// was listed when the list was read, and the counts are exact. Bounded (about a second of
    /// waiting; after that a count may be one too high, a safe "retained"), and not done on a
    /// thread that is itself releasing holds (a deinit run by a release), which would wait for
    /// itself.
    static func withoutReleasesUnderway<Result>(_ read: () -> Result) -> Result {
        guard lg_get_releasing_snapshot() == 0 else { return read() }
        for _ in 0..<10_000 {
            let unlisted = batchesUnlisted.load(ordering: .sequentiallyConsistent)
            guard batchesReleased.load(ordering: .sequentiallyConsistent) == unlisted else {
                usleep(100)
                continue
            }
            let result = read()
            if batchesUnlisted.load(ordering: .sequentiallyConsistent) == unlisted { return result }
        }
        return read()
    }

    /// The object an external (``LeakGraph/track(_:label:)``) slot refers to, retained exactly
    /// once, or nil when it is gone; the caller subtracts that +1 from the count it reads and
    /// releases it after unlocking. (Loading a weak reference yields a strong temporary: the
    /// function's end releases it before the count can be read.)
    @inline(never)
    static func retainedExternal(_ reference: WeakReference?) -> Unmanaged<AnyObject>? {
        guard let object = reference?.object else { return nil }
        return Unmanaged.passRetained(object)
    }

    /// - Parameter only: when given (ascending ids), the snapshot holds and walks only these
    ///   objects: a second look at a few suspects, costing what they are, not what the process is.
    static func take(_ registry: Registry, options: SnapshotOptions, only: [UInt64]? = nil) -> GraphSnapshot {
        // LeakGraph's own allocations while it looks are not the program's: not recorded (until
        // the holds are let go: a deinit that runs then is the program's).
        lg_process_suppress(1)
        var suppressed = true
        defer { if suppressed { lg_process_suppress(-1) } }
        // Before any lock or gate: testing a weak reference can run a deinit, which may itself
        // take a snapshot.
        registry.pruneDeadExternals()
        let discovers = options.discoverReferences || options.scanClosures
        guard discovers else {
            return withoutReleasesUnderway { take(registry, options: options, holding: false, only: only).snapshot }
        }
        var taken: (snapshot: GraphSnapshot, held: [UInt], listing: Int)?
        while taken == nil {
            // Waited for outside the gate: a deinit run by those releases may itself take a
            // snapshot, which needs the gate.
            let settled = waitForReleasesInFlight()
            holdingGate.withLock { count in
                // Checked again inside the gate (another snapshot may have slipped in and be
                // releasing by now), unless waiting timed out or cannot help (this thread is
                // the one releasing): then an over-count, a safe "retained", is accepted.
                if settled && lg_get_releasing_snapshot() == 0
                    && releasesInFlight.load(ordering: .sequentiallyConsistent) > 0
                {
                    return
                }
                count += 1
                taken = take(registry, options: options, holding: true, only: only)
                // Counted in flight before the gate opens, so that the next holding snapshot
                // waits for these holds to be let go. (Counted after the gate, one could slip
                // in and read a count while a hold of this one was unlisted but not yet
                // released: an over-count, which turned leaks into "retained" under the
                // sanitizers.)
                releasesInFlight.add(1, ordering: .sequentiallyConsistent)
            }
        }
        guard let (snapshot, held, listing) = taken else { return GraphSnapshot(objects: [], edges: []) }  // not reached
        // Released outside every lock: a release may run a deinit that takes a snapshot. Each
        // hold is unlisted before it is released, so a snapshot reading meanwhile can only
        // over-count (a safe "retained"), never under-count; declared-only reads avoid even that
        // (see `withoutReleasesUnderway`).
        lg_process_suppress(-1)
        suppressed = false
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() + 1)
        // In batches: one lock per 256 holds instead of one per hold keeps the window in which
        // other snapshots wait short.
        var start = 0
        while start < held.count {
            let end = min(held.count, start + 256)
            batchesUnlisted.add(1, ordering: .sequentiallyConsistent)
            releasing.withLock { $0.unlist(listing, before: end) }
            for address in held[start..<end] {
                Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
            }
            batchesReleased.add(1, ordering: .sequentiallyConsistent)
            start = end
        }
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() - 1)
        releasesInFlight.subtract(1, ordering: .sequentiallyConsistent)
        return snapshot
    }

    /// Lets another thread's snapshot finish letting go of its holds before counting, so that
    /// those holds do not show up as unexplained owners. Bounded (10 s: releasing a big process's
    /// holds under a sanitizer on a loaded machine takes well over the 100 ms this once was, and
    /// every early give-up turned a leak into "retained" for the snapshot that gave up; in
    /// ordinary runs releases take milliseconds) so that nothing can deadlock on it, and skipped when this thread is itself releasing (a deinit run by a
    /// release that takes a snapshot).
    /// - Returns: Whether no release is in flight any more (false when it gave up waiting, or
    ///   on a releasing thread).
    @discardableResult
    private static func waitForReleasesInFlight() -> Bool {
        guard lg_get_releasing_snapshot() == 0 else { return false }
        var waited = 0
        while releasesInFlight.load(ordering: .sequentiallyConsistent) > 0 {
            if waited == 100_000 { return false }
            usleep(100)
            waited += 1
        }
        return true
    }

    /// Each address's position in `addresses` (all nonzero).
    private static func addressIndex(_ addresses: [UInt64]) -> FlatIndex {
        var index = FlatIndex(capacity: addresses.count)
        for (position, address) in addresses.enumerated() { index.insert(address, position: position) }
        return index
    }

    /// With `holding`, every object is retained for the time of the snapshot (reflection reads
    /// its fields outside the lock). Without, nothing is retained: retain counts are read under
    /// the registry lock, where no registered object can be freed (its `deinit` waits for the
    /// lock to unregister), and objects already deinitialising are skipped. A declared-only
    /// snapshot therefore never delays a deallocation.
    private static func take(_ registry: Registry, options: SnapshotOptions, holding: Bool, only: [UInt64]?)
        -> (snapshot: GraphSnapshot, held: [UInt], listing: Int)
    {
        let time = Double(coarseWallClockNanoseconds()) / 1e9
        // Read once: whether objects may be read in place must not change within one snapshot.
        let processWide = ProcessTracking.isActive
        var held: [Held] = []
        var retainCounts: [Int] = []
        var rawEdges: [RawEdge] = []
        var labels: [String] = []
        var stackFrames: [Int32: [UInt]] = [:]
        var ownHolds: [UInt] = []
        var heldAddresses: [UInt] = []
        var listing = -1
        // Counts are read only when no other thread holds a strong temporary of a tracked
        // external object (see `ExternalLoads`).
        ExternalLoads.withSettledState(of: registry) { state in
            // Strong temporaries of external objects, released once the lock is left.
            var externals: [Unmanaged<AnyObject>] = []
            var indexOfSlot = [Int](repeating: -1, count: state.objects.count)
            held.reserveCapacity(state.liveCount)
            retainCounts.reserveCapacity(state.liveCount)
            for slot in state.objects.indices {
                let entry = state.objects[slot]
                let address = entry.address
                guard address != 0, let pointer = UnsafeMutableRawPointer(bitPattern: address) else { continue }
                if let only, !only.containsSorted(entry.id) { continue }
                if entry.isExternal {
                    guard let strong = retainedExternal(state.weakReferences[Int32(slot)]) else { continue }
                    retainCounts.append(runtimeRetainCount(pointer) - 1)
                    // Holding, this +1 is the snapshot's hold, let go of with the others.
                    if !holding { externals.append(strong) }
                } else if holding {
                    guard runtimeTryRetain(pointer) else { continue }
                    retainCounts.append(runtimeRetainCount(pointer) - 1)
                } else {
                    guard !runtimeIsDeallocating(pointer) else { continue }
                    retainCounts.append(runtimeRetainCount(pointer))
                }
                indexOfSlot[slot] = held.count
                var object = Held(
                    address: address, entry: entry, label: state.label(ofSlot: slot), slot: Int32(slot))
                // An external object's registry entry is itself a weak reference to it.
                object.weakAndUnowned = runtimeWeakAndUnownedReferences(pointer) - (entry.isExternal ? 1 : 0)
                held.append(object)
                if entry.stack >= 0 && stackFrames[entry.stack] == nil {
                    stackFrames[entry.stack] = Array(state.stacks.stack(entry.stack))
                }
            }
            if holding && processWide {
                // Every other Swift object of the process (whole-process tracking), held the same
                // way; tracked objects are already in and are left out.
                let first = held.count
                ownHolds = holdProcessObjects(
                    excluding: held.map(\.address).sorted(), only: only, into: &held, retainCounts: &retainCounts)
                for object in held[first...]
                where object.entry.stack != -1 && stackFrames[object.entry.stack] == nil {
                    stackFrames[object.entry.stack] = processStack(object.entry.stack)
                }
            }
            // Holds that other snapshots are still releasing, read after every count: a releaser
            // unlists a hold before releasing it, so a hold released after its count was read is
            // still listed here (exact), and one released before is no longer listed (exact);
            // reading the list first could subtract a hold twice and make a live object look
            // explained, the one error the verdict must never make.
            let listed = releasing.withLock { $0.listed }
            if !listed.isEmpty {
                let othersHold = HoldLedger.counts(listed)
                for (index, object) in held.enumerated() {
                    if let holds = othersHold[object.address] { retainCounts[index] -= holds }
                }
            }
            if holding {
                // Listed while still under the registry lock, so that every other snapshot sees
                // these holds either not yet taken or listed, for as long as they last.
                heldAddresses = held.map(\.address)
                listing = releasing.withLock { $0.list(heldAddresses) }
            }
            rawEdges.reserveCapacity(state.liveEdgeCount)
            for edge in state.edges where edge.from >= 0 {
                let from = indexOfSlot[Int(edge.from)]
                let to = indexOfSlot[Int(edge.to)]
                guard from >= 0, to >= 0 else { continue }
                rawEdges.append(
                    RawEdge(
                        from: from, to: to, kind: edge.kind, label: edge.label, count: Int(edge.count),
                        site: edge.site)
                )
                if edge.site >= 0 && stackFrames[edge.site] == nil {
                    stackFrames[edge.site] = Array(state.stacks.stack(edge.site))
                }
            }
            labels = state.labels
            return externals
        }
        for address in ownHolds { lg_process_release(address) }
        retainCounts = retainCounts.map { max(0, $0) }
        // In id order (whole-process records come in hash order): then the objects need no
        // sorting later, and edges come out of `merge` in order.
        if !held.indices.dropFirst().allSatisfy({ held[$0 - 1].entry.id < held[$0].entry.id }) {
            sortByID(&held, &retainCounts, &rawEdges)
        }

        // Compact stack ids in order of first use, so dumps are small and deterministic.
        var stackIDs: [Int32: Int] = [:]
        var stacks: [StackInfo] = []
        func stackID(_ raw: Int32) -> Int? {
            guard raw != -1, let frames = stackFrames[raw] else { return nil }
            if let id = stackIDs[raw] { return id }
            let id = stacks.count
            stackIDs[raw] = id
            stacks.append(StackInfo(id: id, addresses: frames))
            return id
        }

        // The index of the objects' addresses (what the walk asks of references other than plain
        // strong ones) is built on another thread while the objects' records are made and the
        // walk starts, for a big snapshot: indexing a million random addresses is a miss of the
        // cache per insert, a sixth of the snapshot on one thread. Only a snapshot that walks
        // needs it.
        let addresses = holding ? held.map { UInt64($0.address) } : []
        let indexBuilt: BackgroundResult<FlatIndex>? =
            addresses.count >= 100_000 ? BackgroundResult { addressIndex(addresses) } : nil
        let names = typeNames(for: held.map { $0.entry.metadata })
        var objects: [ObjectInfo] = []
        objects.reserveCapacity(held.count)
        var discoveryLimits: [String] = []
        var unreadReferences: [UnreadReferenceInfo] = []
        // Words compared with live objects where no type says they own them, resolved once every
        // edge is known (see `CandidateResolution`).
        var candidates: [CandidateReference] = []
        var regions: [UntypedRegion] = []
        for (index, object) in held.enumerated() {
            let count = retainCounts[index]
            var info = ObjectInfo(
                id: object.entry.id, type: names[index], label: object.label, strongRetainCount: count,
                stack: stackID(object.entry.stack), time: Double(object.entry.time) / 1e9,
                state: ObjectState(code: object.entry.state), scope: object.entry.scope)
            info.isRecordedProcessWide = object.isRecordedProcessWide
            info.weakAndUnownedReferenceCount = max(0, object.weakAndUnowned)
            objects.append(info)
        }

        // The declared edges' records are made after the walk and its merge (below): they are a
        // tenth of a big snapshot's memory, and the merge's peak is its highest point.
        var merged: [EdgeInfo] = []

        if holding {
            // Objects allocated before whole-process tracking began are not followed: nothing
            // proves a word read from them still points at a live object.
            // Whole-process snapshots walk objects other threads are using: memory the snapshot
            // does not hold is copied before it is read (see `UnheldMemory`).
            let memoryMap = MemoryMap.current()
            let positions = HeldAddresses(
                addresses: addresses, slots: held.map(\.slot),
                allTrackedObjects: !held.contains { $0.entry.isExternal || $0.isRecordedProcessWide },
                readsObjects: !processWide && options.discoverReferences, map: memoryMap
            ) { indexBuilt?.value ?? addressIndex(addresses) }
            var walker = HeapWalker(
                trackedCount: held.count, map: memoryMap, scanClosures: options.scanClosures,
                untrackedHops: options.discoverReferences && !processWide ? 2 : 0, copiesUnheldMemory: processWide,
                followsUnrecordedObjects: processWide && options.discoverReferences,
                asksWhetherRecorded: only != nil
            ) { positions.position(of: $0, strongReference: $1) }
            // Class instances first, then the boxes and closure contexts whole-process tracking
            // recorded: a box must be known as one (reached from its holder) before it is walked.
            var contexts: [Int] = []
            for (index, object) in held.enumerated() {
                if object.entry.metadata != 0, let metadata = UnsafeRawPointer(bitPattern: object.entry.metadata),
                    HeapObjectKind(metadata: metadata) == .heapLocalVariable
                {
                    contexts.append(index)
                } else {
                    walker.walk(address: object.address, index: index)
                }
            }
            for index in contexts { walker.walk(address: held[index].address, index: index) }
            walker.finish()
            for index in contexts {
                if let name = walker.storageNames[held[index].address] { objects[index].type = name }
            }
            // The held records are done with (what is released at the end is `heldAddresses`):
            // freed before the merge, the snapshot's highest point of memory.
            let trackedCount = held.count
            held = []
            var unread = walker.unread
            candidates = walker.candidates
            regions = walker.regions
            let (nodes, references) = usefulNodes(
                walker.nodes, walker.found, unread: &unread, candidates: &candidates, regions: &regions,
                trackedCount: trackedCount)
            for node in nodes {
                var info = ObjectInfo(
                    id: ObjectInfo.discoveredNodeIDBase + UInt64(node.address / 8), type: node.type, label: nil,
                    strongRetainCount: node.retainCount, stack: nil, time: time, state: .unspecified, scope: 0)
                info.weakAndUnownedReferenceCount = node.weakAndUnownedReferences
                objects.append(info)
                retainCounts.append(node.retainCount)
            }
            discoveryLimits = walker.limits.sorted()
            unreadReferences = unread.map {
                UnreadReferenceInfo(object: objects[$0.owner].id, place: $0.place, why: $0.why)
            }.sorted { ($0.object, $0.place) < ($1.object, $1.place) }
            merged = merge(references, declared: rawEdges, objects: objects, trackedCount: trackedCount)
        }
        // Declared edges first, then what the walk added, made at their final size (a million
        // edges copied twice was a tenth of a big snapshot).
        var edges: [EdgeInfo] = []
        edges.reserveCapacity(rawEdges.count + merged.count)
        for raw in rawEdges {
            edges.append(
                EdgeInfo(
                    from: objects[raw.from].id, to: objects[raw.to].id, kind: EdgeKind(code: raw.kind),
                    label: labels[Int(raw.label)], origin: .declared, count: raw.count, site: stackID(raw.site)))
        }
        rawEdges = []
        edges.append(contentsOf: merged)
        merged = []
        if holding {
            reconcile(&edges, objects: objects, retainCounts: retainCounts)
            if !candidates.isEmpty || !regions.isEmpty {
                let unsettled = CandidateResolution.resolve(
                    candidates, regions: regions, edges: &edges, objects: objects, retainCounts: retainCounts)
                unreadReferences = CandidateResolution.adding(unsettled, to: unreadReferences)
            }
        }
        // An object whose every strong reference is a snapshot's hold is already unreachable:
        // it is freed as soon as that snapshot lets go, so it is not reported as alive.
        let onlyHeldByLeakGraph = Set(objects.indices.filter { retainCounts[$0] == 0 }.map { objects[$0].id })
        if !onlyHeldByLeakGraph.isEmpty {
            objects.removeAll { onlyHeldByLeakGraph.contains($0.id) }
            edges.removeAll { onlyHeldByLeakGraph.contains($0.from) || onlyHeldByLeakGraph.contains($0.to) }
        }
        if !onlyHeldByLeakGraph.isEmpty { unreadReferences.removeAll { onlyHeldByLeakGraph.contains($0.object) } }
        var snapshot = GraphSnapshot(objects: objects, edges: edges, stacks: stacks, time: time)
        snapshot.discoveryLimits = discoveryLimits
        snapshot.unreadReferences = unreadReferences
        return (snapshot, heldAddresses, listing)
    }

    /// Puts the held objects (and their retain counts) in id order, renumbering the declared
    /// edges: one sort of packed integers, then one move of each object.
    private static func sortByID(_ held: inout [Held], _ retainCounts: inout [Int], _ rawEdges: inout [RawEdge]) {
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
    private static func holdProcessObjects(
        excluding excluded: [UInt], only: [UInt64]?, into held: inout [Held], retainCounts: inout [Int]
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
        for record in UnsafeBufferPointer(start: buffer, count: count) {
            let isOwn = ownTypes[record.metadata] ?? isLeakGraphType(record.metadata)
            ownTypes[record.metadata] = isOwn
            if isOwn {
                own.append(record.address)
                continue
            }
            let age = monotonicNow > record.nanoseconds ? monotonicNow - record.nanoseconds : 0
            let entry = ObjectSlot(
                address: record.address, metadata: record.metadata, id: record.id,
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
    private static let ownTypeCache = Locked<[UInt: Bool]>([:], heldAcrossFork: true)

    private static func isLeakGraphType(_ metadata: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata),
            HeapObjectKind(metadata: pointer) == .classInstance
        else { return false }
        return qualifiedTypeName(unsafeBitCast(pointer, to: AnyObject.Type.self)).hasPrefix("LeakGraph.")
    }

    /// The frames of a stack recorded by whole-process tracking (`key` is `-2 - its id`).
    private static func processStack(_ key: Int32) -> [UInt] {
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
    private static func typeName(_ pointer: UInt, in local: inout [UInt: String], added: inout Bool) -> String {
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

    private struct Pair: Hashable {
        let from: Int
        let to: Int
    }

    /// Discovered references that merge into one edge (with a count).
    private struct EdgeKey: Hashable {
        let kind: EdgeKind
        let label: String
        let closure: UInt
    }

    /// Keeps the nodes discovery added that lead to a tracked object (directly or through other
    /// such nodes): storage and untracked objects that hold nothing tracked are left out of the
    /// graph. Returns the kept nodes and the references, renumbered.
    private static func usefulNodes(
        _ nodes: [DiscoveredNode], _ found: [DiscoveredReference], unread: inout [UnreadReference],
        candidates: inout [CandidateReference], regions: inout [UntypedRegion], trackedCount: Int
    ) -> ([DiscoveredNode], [DiscoveredReference]) {
        guard !nodes.isEmpty else { return ([], found) }
        var useful = [Bool](repeating: false, count: nodes.count)
        var predecessors = [[Int]](repeating: [], count: nodes.count)
        var queue: [Int] = []
        // A node whose memory held references the walk could not read may lead to a tracked
        // object through them: kept, so that the reports can say so.
        // So does one with words that matched a tracked object, or with untyped memory.
        let owners =
            unread.lazy.map(\.owner) + candidates.lazy.map(\.from) + regions.lazy.map(\.owner)
        for owner in owners where owner >= trackedCount {
            let node = owner - trackedCount
            if !useful[node] {
                useful[node] = true
                queue.append(node)
            }
        }
        for reference in found where reference.from >= trackedCount {
            let node = reference.from - trackedCount
            switch reference.to {
            case .tracked:
                if !useful[node] {
                    useful[node] = true
                    queue.append(node)
                }
            case .node(let target):
                predecessors[target].append(node)
            }
        }
        while let node = queue.popLast() {
            for predecessor in predecessors[node] where !useful[predecessor] {
                useful[predecessor] = true
                queue.append(predecessor)
            }
        }
        // In address order: a node's id is made from its address, and objects go in id order.
        var renumbered = [Int](repeating: -1, count: nodes.count)
        var kept: [DiscoveredNode] = []
        for index in nodes.indices.filter({ useful[$0] }).sorted(by: { nodes[$0].address < nodes[$1].address }) {
            renumbered[index] = kept.count
            kept.append(nodes[index])
        }
        let references = found.compactMap { reference -> DiscoveredReference? in
            var from = reference.from
            if from >= trackedCount {
                let node = renumbered[from - trackedCount]
                guard node >= 0 else { return nil }
                from = trackedCount + node
            }
            var to = reference.to
            if case .node(let target) = reference.to {
                guard renumbered[target] >= 0 else { return nil }
                to = .node(renumbered[target])
            }
            return DiscoveredReference(
                from: from, to: to, kind: reference.kind, label: reference.label, origin: reference.origin,
                closureAddress: reference.closureAddress)
        }
        unread = unread.map {
            guard $0.owner >= trackedCount else { return $0 }
            return UnreadReference(
                owner: trackedCount + renumbered[$0.owner - trackedCount], place: $0.place, why: $0.why)
        }
        for index in candidates.indices where candidates[index].from >= trackedCount {
            candidates[index].from = trackedCount + renumbered[candidates[index].from - trackedCount]
        }
        for index in regions.indices where regions[index].owner >= trackedCount {
            regions[index].owner = trackedCount + renumbered[regions[index].owner - trackedCount]
        }
        return (kept, references)
    }

    /// A reference declared by code and found again by reflection is one reference: per
    /// (owner, target) pair, discovered strong references only add what the declared ones do not
    /// already account for.
    private static func merge(
        _ found: [DiscoveredReference], declared: [RawEdge], objects: [ObjectInfo],
        trackedCount: Int
    ) -> [EdgeInfo] {
        // Both sides sorted by (from, to) and walked together: a million references cost two
        // sorts of plain integers, not a dictionary entry and an array per owner–target pair.
        struct DeclaredPair {
            var from: Int
            var to: Int
            var strong: Int
            var other: Bool
        }
        func before(_ a: (Int, Int), _ b: (Int, Int)) -> Bool { a.0 != b.0 ? a.0 < b.0 : a.1 < b.1 }
        var declaredPairs: [DeclaredPair] = declared.map { raw in
            let kind = EdgeKind(code: raw.kind)
            let strong = kind == .strong || kind == .unknown
            return DeclaredPair(from: raw.from, to: raw.to, strong: strong ? raw.count : 0, other: !strong)
        }
        declaredPairs.sort { before(($0.from, $0.to), ($1.from, $1.to)) }
        var coalesced: [DeclaredPair] = []
        coalesced.reserveCapacity(declaredPairs.count)
        for pair in declaredPairs {
            if let last = coalesced.last, last.from == pair.from, last.to == pair.to {
                coalesced[coalesced.count - 1].strong += pair.strong
                coalesced[coalesced.count - 1].other = last.other || pair.other
            } else {
                coalesced.append(pair)
            }
        }
        declaredPairs = []  // `coalesced` holds them now; the merge peaks below
        // Found references with their target's index, in discovery order within each pair.
        struct Resolved {
            var from: Int
            var to: Int
            var order: Int
        }
        var resolved: [Resolved] = []
        resolved.reserveCapacity(found.count)
        for (order, reference) in found.enumerated() {
            switch reference.to {
            case .tracked(let index):
                resolved.append(Resolved(from: reference.from, to: index, order: order))
            case .node(let node):
                resolved.append(Resolved(from: reference.from, to: trackedCount + node, order: order))
            }
        }
        resolved.sort { a, b in
            if a.from != b.from { return a.from < b.from }
            if a.to != b.to { return a.to < b.to }
            return a.order < b.order
        }
        var result: [EdgeInfo] = []
        // Room for the references no declared edge accounts for: reserving one edge per found
        // reference doubled a big snapshot's edges for the moment (in a graph of declared edges,
        // the walk finds them all again and keeps none).
        result.reserveCapacity(max(0, resolved.count - coalesced.count))
        var kept: [EdgeKey: Int] = [:]
        var declaredCursor = 0
        var groupStart = 0
        while groupStart < resolved.count {
            let pair = (resolved[groupStart].from, resolved[groupStart].to)
            var groupEnd = groupStart + 1
            while groupEnd < resolved.count && resolved[groupEnd].from == pair.0 && resolved[groupEnd].to == pair.1 {
                groupEnd += 1
            }
            while declaredCursor < coalesced.count
                && before((coalesced[declaredCursor].from, coalesced[declaredCursor].to), pair)
            {
                declaredCursor += 1
            }
            let declaredHere =
                declaredCursor < coalesced.count && coalesced[declaredCursor].from == pair.0
                    && coalesced[declaredCursor].to == pair.1
                ? coalesced[declaredCursor] : nil
            var remaining = declaredHere?.strong ?? 0
            let anyDeclared = declaredHere.map { $0.other || $0.strong > 0 } ?? false
            // References that merge into one edge: a short linear search for the usual few,
            // a dictionary for a pair with many.
            let firstKept = result.count
            let hashed = groupEnd - groupStart > 16
            if hashed { kept.removeAll(keepingCapacity: true) }
            for position in groupStart..<groupEnd {
                let reference = found[resolved[position].order]
                if reference.kind == .strong || reference.kind == .unknown {
                    if remaining > 0 {
                        remaining -= 1
                        continue
                    }
                } else if anyDeclared {
                    continue
                }
                let key = EdgeKey(kind: reference.kind, label: reference.label, closure: reference.closureAddress ?? 0)
                let existing: Int?
                if hashed {
                    existing = kept[key]
                } else {
                    existing = result[firstKept...].firstIndex { edge in
                        edge.kind == key.kind && edge.label == key.label && (edge.closureAddress ?? 0) == key.closure
                    }
                }
                if let existing {
                    result[existing].count += 1
                } else {
                    if hashed { kept[key] = result.count }
                    result.append(
                        EdgeInfo(
                            from: objects[pair.0].id, to: objects[pair.1].id, kind: reference.kind,
                            label: reference.label, origin: reference.origin, closureAddress: reference.closureAddress))
                }
            }
            groupStart = groupEnd
        }
        // Field by field, not as tuples: tuple `<` is generic and, in a debug build, looks up
        // tuple metadata for every comparison.
        func before(_ a: EdgeInfo, _ b: EdgeInfo) -> Bool {
            if a.from != b.from { return a.from < b.from }
            if a.to != b.to { return a.to < b.to }
            return a.label < b.label
        }
        // Objects are in id order, so edges come out ordered by (from, to) already: only the
        // edges of one pair need ordering by label, in place. Sorted whole otherwise.
        var start = 0
        var pairsInOrder = true
        while start < result.count {
            var end = start + 1
            while end < result.count && result[end].from == result[start].from && result[end].to == result[start].to {
                end += 1
            }
            if end - start > 1 { result[start..<end].sort(by: before) }
            if end < result.count && !before(result[end - 1], result[end]) { pairsInOrder = false }
            start = end
        }
        if !pairsInOrder { result.sort(by: before) }
        return result
    }

    /// More strong references into an object than its retain count allows means some found ones
    /// are not strong (an `unowned` capture looks like a strong one): downgrade found references
    /// to `.unknown` until the count fits. Declared edges are trusted.
    private static func reconcile(_ edges: inout [EdgeInfo], objects: [ObjectInfo], retainCounts: [Int]) {
        // Objects are in id order by construction (held objects sorted by `sortByID`, then the
        // discovered nodes in address order, whose ids follow): a direct table or a binary search.
        let index = NodeIndex(objects)
        let position = { index.node(of: $0) }
        var strongIn = [Int](repeating: 0, count: objects.count)
        for edge in edges where edge.kind == .strong {
            strongIn[position(edge.to)] += edge.count
        }
        for place in edges.indices.reversed() {
            let edge = edges[place]
            guard edge.kind == .strong, edge.origin != .declared else { continue }
            let target = position(edge.to)
            if strongIn[target] > retainCounts[target] {
                edges[place].kind = .unknown
                strongIn[target] -= edge.count
            }
        }
    }
}

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
private final class HeldAddresses {
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
    private static let slotOffset = 16

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
    private static func isTrackedObjectClass(_ metadata: UInt, map: MemoryMap) -> Bool {
        guard map.readableBytes(at: metadata) >= 8, let pointer = UnsafeRawPointer(bitPattern: metadata) else {
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
            guard map.readableBytes(at: superMetadata) >= 8,
                let superPointer = UnsafeRawPointer(bitPattern: superMetadata),
                superPointer.load(as: UInt.self) == 0 || superPointer.load(as: UInt.self) >= 0x800
            else { return false }
            current = superclass
        }
        return false
    }
}
