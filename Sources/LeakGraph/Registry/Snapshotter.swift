import CLeakGraphSupport

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
    struct Held {
        let address: UInt
        let entry: ObjectSlot
        let label: String?
        /// What its code said holds it from outside the graph.
        var outsideHolder: String? = nil
        var isRecordedProcessWide = false
        /// The registry slot of a tracked object (`TrackedObject` or external), -1 for a
        /// process-wide record.
        var slot: Int32 = -1
        /// `weak` and `unowned` references to the object, the registry's own excluded.
        var weakAndUnowned = 0
    }

    struct RawEdge {
        let from: Int
        let to: Int
        let kind: UInt8
        let label: Int32
        let count: Int
        let site: Int32
    }

    static let typeNames = Locked<[UInt: String]>([:], heldAcrossFork: true)

    /// Only one snapshot at a time holds objects, so that its own +1 is the only one to
    /// subtract from the retain counts it reads.
    static let holdingGate = Locked(0, heldAcrossFork: true)  // the count of holding snapshots taken
    /// Holds that snapshots have taken and not yet let go of: other snapshots subtract them
    /// from the retain counts they read.
    static let releasing = Locked(HoldLedger(), heldAcrossFork: true)

    // How many snapshots are releasing their holds, and the batches of holds unlisted and
    // released (while they differ, some hold is unlisted but not yet released, and a retain count
    // read then is one too high with nothing listed to subtract), are counted in C
    // (snapshot_releases.c). In a forked child the snapshots other threads were releasing at the
    // moment of the fork never finish (those threads do not exist): their holds stay listed —
    // retains nobody will release, which later snapshots subtract — but the child's fork handler
    // resets the counters so that nobody waits for them (each snapshot in the child waited 10 s),
    // and there no Swift global may be touched.

    /// Finishes this type's lazy globals before a fork (see `beforeFork`).
    static func prepareForFork() {
        _ = typeNames
        _ = holdingGate
        _ = releasing
        _ = ownTypeCache
    }

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
            let unlisted = lg_snapshot_batches_unlisted()
            guard lg_snapshot_batches_released() == unlisted else {
                usleep(100)
                continue
            }
            let result = read()
            if lg_snapshot_batches_unlisted() == unlisted { return result }
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
        lg_analysis_enter()
        defer { lg_analysis_leave() }
        var suppressed = true
        defer { if suppressed { lg_process_suppress(-1) } }
        // Before any lock or gate: testing a weak reference can run a deinit, which may itself
        // take a snapshot.
        registry.pruneDeadExternals()
        let discovers = options.discoverReferences || options.scanClosures
        guard discovers else {
            return withoutReleasesUnderway {
                let taken = take(registry, options: options, holding: false, only: only)
                return taken.rest.map { $0.finished() } ?? taken.snapshot
            }
        }
        var taken: (snapshot: GraphSnapshot, held: [UInt], listing: Int, rest: PendingSnapshot?)?
        while taken == nil {
            // Waited for outside the gate: a deinit run by those releases may itself take a
            // snapshot, which needs the gate.
            let settled = waitForReleasesInFlight()
            holdingGate.withLock { count in
                // Checked again inside the gate (another snapshot may have slipped in and be
                // releasing by now), unless waiting timed out or cannot help (this thread is
                // the one releasing): then an over-count, a safe "retained", is accepted.
                if settled && lg_get_releasing_snapshot() == 0
                    && lg_snapshot_releases_in_flight() > 0
                {
                    return
                }
                count += 1
                // Counted in flight before the gate opens, so that the next holding snapshot
                // waits for these holds to be let go. (Counted after the gate, one could slip
                // in and read a count while a hold of this one was unlisted but not yet
                // released: an over-count, which turned leaks into "retained" under the
                // sanitizers.) And before the holds are taken: the runtime's check that a
                // `withoutActuallyEscaping` closure did not escape allows for the holds of the
                // snapshots in flight (process_tracking.c).
                lg_snapshot_release_began()
                taken = take(registry, options: options, holding: true, only: only)
            }
        }
        // Not reached: the loop above always takes one.
        guard let (taken, held, listing, rest) = taken else { return GraphSnapshot(objects: [], edges: []) }
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
            lg_snapshot_batch_unlisted()
            releasing.withLock { $0.unlist(listing, before: end) }
            for address in held[start..<end] {
                Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
            }
            lg_snapshot_batch_released()
            start = end
        }
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() - 1)
        lg_snapshot_release_ended()
        guard let rest else { return taken }
        // LeakGraph's own allocations again, not the program's.
        lg_process_suppress(1)
        defer { lg_process_suppress(-1) }
        return rest.finished()
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
    static func waitForReleasesInFlight() -> Bool {
        guard lg_get_releasing_snapshot() == 0 else { return false }
        var waited = 0
        while lg_snapshot_releases_in_flight() > 0 {
            if waited == 100_000 { return false }
            usleep(100)
            waited += 1
        }
        return true
    }

    /// Each address's position in `addresses` (all nonzero).
    static func addressIndex(_ addresses: [UInt64]) -> FlatIndex {
        var index = FlatIndex(capacity: addresses.count)
        for (position, address) in addresses.enumerated() { index.insert(address, position: position) }
        return index
    }

    /// With `holding`, every object is retained for the time of the snapshot (reflection reads
    /// its fields outside the lock). Without, nothing is retained: retain counts are read under
    /// the registry lock, where no registered object can be freed (its `deinit` waits for the
    /// lock to unregister), and objects already deinitialising are skipped. A declared-only
    /// snapshot therefore never delays a deallocation.
    static func take(_ registry: Registry, options: SnapshotOptions, holding: Bool, only: [UInt64]?)
        -> (snapshot: GraphSnapshot, held: [UInt], listing: Int, rest: PendingSnapshot?)
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
        // The process's mappings, read before any lock: which types' libraries are still loaded.
        let processMap = holding && processWide ? MemoryMap.current() : nil
        // Counts are read only when no other thread holds a strong temporary of a tracked
        // external object (see `ExternalLoads`).
        ExternalLoads.withSettledState(of: registry) { state in
            // Strong temporaries of external objects, released once the lock is left.
            var externals: [Unmanaged<AnyObject>] = []
            var indexOfSlot = [Int](repeating: -1, count: state.objectSlotCount)
            held.reserveCapacity(state.liveCount)
            retainCounts.reserveCapacity(state.liveCount)
            for slot in 0..<state.objectSlotCount {
                let entry = state.object(inSlot: slot)
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
                if !state.outsideHolders.isEmpty { object.outsideHolder = state.outsideHolders[Int32(slot)] }
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
                    excluding: held.map(\.address).sorted(), only: only, map: processMap ?? MemoryMap.current(),
                    into: &held, retainCounts: &retainCounts)
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
            for index in 0..<state.edgeSlotCount {
                let edge = state.edge(inSlot: index)
                guard edge.from >= 0 else { continue }
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
            if let holder = object.outsideHolder { info.outsideHolders = [holder] }
            info.address = object.address
            objects.append(info)
        }

        // The declared edges' records are made after the walk and its merge (below): they are a
        // tenth of a big snapshot's memory, and the merge's peak is its highest point.
        var merged: [EdgeInfo] = []
        // Asked only when a suspended task's frames may be credited (see `CandidateResolution`).
        var heldFromOutside: (([Int], [UInt], Bool) -> OutsideHolders.Found)?

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
                if object.entry.metadata > unloadedTypeMetadata,
                    let metadata = UnsafeRawPointer(bitPattern: object.entry.metadata),
                    HeapObjectKind(metadata: metadata) == .heapLocalVariable
                {
                    contexts.append(index)
                } else {
                    walker.walk(address: object.address, index: index)
                }
            }
            for index in contexts { walker.walk(address: held[index].address, index: index) }
            walker.settleTaskWords()
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
            if candidates.contains(where: \.isTaskWord) {
                let recordedOnly = only != nil
                heldFromOutside = { targets, addresses, looksAtStacks in
                    OutsideHolders.find(
                        targets, addresses: { addresses[$0] }, trackedCount: trackedCount, map: memoryMap,
                        asksWhetherRecorded: recordedOnly, followsObjects: processWide, looksAtStacks: looksAtStacks
                    ) { address, _ in
                        // Asked after the holds are let go: by the index of addresses only, never
                        // by reading the object there.
                        positions.position(of: address, strongReference: false)
                    }
                }
            }
            regions = walker.regions
            let (nodes, references) = usefulNodes(
                walker.nodes, walker.found, unread: &unread, candidates: &candidates, regions: &regions,
                trackedCount: trackedCount)
            // Room for the discovered nodes at once: one more than the tracked objects' capacity
            // doubled the array (a million objects' records copied, twice their size held).
            objects.reserveCapacity(objects.count + nodes.count)
            retainCounts.reserveCapacity(retainCounts.count + nodes.count)
            for node in nodes {
                var info = ObjectInfo(
                    id: ObjectInfo.discoveredNodeIDBase + UInt64(node.address / 8), type: node.type, label: node.label,
                    strongRetainCount: node.retainCount, stack: nil, time: time, state: node.state, scope: 0)
                info.weakAndUnownedReferenceCount = node.weakAndUnownedReferences
                info.address = node.address
                if !node.codeAddresses.isEmpty {
                    // A task's resume points, as a stack of their own: symbolized with the others,
                    // then said as what it waits in (`Symbolicator`).
                    info.stack = stacks.count
                    stacks.append(StackInfo(id: stacks.count, addresses: node.codeAddresses))
                }
                objects.append(info)
                retainCounts.append(node.retainCount)
            }
            var limits = walker.limits
            // Never silent: objects a record could not hold are in no whole-process snapshot.
            if processWide, case let unrecordable = lg_process_unrecordable_count(), unrecordable > 0 {
                limits.insert(
                    "\(unrecordable) objects whole-process tracking could not record (an address above 2^48 or not 16-byte aligned, or more than a million types)"
                )
            }
            discoveryLimits = limits.sorted()
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
        let rest = PendingSnapshot(
            objects: objects, edges: edges, stacks: stacks, time: time, retainCounts: retainCounts,
            candidates: candidates, regions: regions, unreadReferences: unreadReferences,
            discoveryLimits: discoveryLimits, reconciles: holding, heldFromOutside: heldFromOutside)
        // Moved, not shared: finishing mutates them.
        (objects, edges, stacks, retainCounts, candidates, regions) = ([], [], [], [], [], [])
        unreadReferences = []
        // Whether a global or a stack holds what a task's frames point at is asked after the
        // holds are let go: it reads no object of the snapshot, and holding every object of the
        // process for that long made another thread's `withoutActuallyEscaping` see its closure
        // as escaped (a hold is a retain).
        if heldFromOutside != nil { return (GraphSnapshot(objects: [], edges: []), heldAddresses, listing, rest) }
        return (rest.finished(), heldAddresses, listing, nil)
    }
}
