import CLeakGraphSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one piece of shared mutable state in LeakGraph: every live tracked object and every
/// declared ownership edge.
///
/// All state sits in one struct behind one lock (`Locked`). Rule that keeps `deinit` re-entrancy safe:
/// nothing is ever released while the lock is held (values removed under the lock are returned
/// and dropped after unlocking), because a released object's `deinit` calls back into here.
final class Registry: Sendable {
    static let shared = Registry()

    /// Read and written only by the registry's own methods; the ``Snapshotter`` copies it
    /// through ``withStateForSnapshot(_:)``.
    private let state: Locked<RegistryState>

    private init() {
        state = Locked(RegistryState(), heldAcrossFork: true)
    }

    /// Runs `body` under the registry's lock with its state: for the ``Snapshotter``, which
    /// copies the objects and edges and takes its holds in one critical section, and for the
    /// read-only live-object queries (`LeakGraph.liveCount(of:)`). `body` must not call user code.
    func withStateForSnapshot<Result>(_ body: (inout RegistryState) -> Result) -> Result {
        state.withLock(body)
    }

    // MARK: Counts and settings

    /// The id the next registered object will get.
    var nextObjectID: UInt64 { state.withLock { $0.nextID } }
    /// Live tracked objects.
    var liveCount: Int { state.withLock { $0.liveCount } }
    /// Live declared edges.
    var liveEdgeCount: Int { state.withLock { $0.liveEdgeCount } }
    /// Bytes of the registry's own tables.
    var byteCount: Int { state.withLock { $0.byteCount } }
    /// Distinct stacks stored.
    var uniqueStackCount: Int { state.withLock { $0.stacks.count } }

    /// The most distinct stacks kept.
    var stackCapacity: Int {
        get { state.withLock { $0.stacks.capacity } }
        set { state.withLock { $0.stacks.capacity = max(0, newValue) } }
    }

    /// Interns a captured stack; returns its id, or nil past the capacity.
    func internStack(_ frames: UnsafeBufferPointer<UInt>) -> Int32? {
        state.withLock { $0.internStack(frames) }
    }

    /// Interns a stack captured under `key` (``StackCapture/withStack(depth:skip:_:)``): a key
    /// this thread met before gives the number without the lock.
    func internStack(_ frames: UnsafeBufferPointer<UInt>, key: UInt64) -> Int32? {
        guard let stackKey = StackKey(frames, token: key) else { return internStack(frames) }
        if let known = stackKey.knownStack { return known }
        guard let id = internStack(frames) else { return nil }
        stackKey.remember(id)
        return id
    }

    /// The id of the live tracked object at `address`, if any.
    func objectID(at address: UInt) -> UInt64? {
        state.withLock { $0.objectID(at: address) }
    }

    // MARK: Objects

    /// Registers a `TrackedObject`; returns its slot.
    func registerTracked(
        _ address: UInt, metadata: UInt, label: String?,
        stack: UnsafeBufferPointer<UInt>?, scope: UInt32, stateCode: UInt8 = 0
    ) -> Int32 {
        let time = coarseWallClockNanoseconds()
        return state.withLock { state in
            state.addTrackedObject(
                address: address, metadata: metadata, label: label, stack: stack, scope: scope, time: time,
                stateCode: stateCode)
        }
    }

    /// Registers a `TrackedObject` with a stack captured under `key` (its remembered walk's token,
    /// 0 for none): a key this thread has met before gives the stack's number without interning
    /// it, and a new one is remembered once interned.
    func registerTracked(
        _ address: UInt, metadata: UInt, label: String?, stack: UnsafeBufferPointer<UInt>?, key: UInt64,
        scope: UInt32, stateCode: UInt8 = 0
    ) -> Int32 {
        guard let stackKey = StackKey(stack, token: key) else {
            return registerTracked(
                address, metadata: metadata, label: label, stack: stack, scope: scope, stateCode: stateCode)
        }
        if let known = stackKey.knownStack {
            return registerTracked(
                address, metadata: metadata, label: label, stackID: known, scope: scope, stateCode: stateCode)
        }
        // Interned in the registration's own critical section, then remembered.
        let time = coarseWallClockNanoseconds()
        let (slot, stackID) = state.withLock { state in
            let slot = state.addTrackedObject(
                address: address, metadata: metadata, label: label, stack: stack, scope: scope, time: time,
                stateCode: stateCode)
            return (slot, state.object(inSlot: Int(slot)).stack)
        }
        stackKey.remember(stackID)
        return slot
    }

    /// Registers a `TrackedObject` with an already interned stack.
    func registerTracked(
        _ address: UInt, metadata: UInt, label: String?, stackID: Int32, scope: UInt32, stateCode: UInt8 = 0
    ) -> Int32 {
        let time = coarseWallClockNanoseconds()
        return state.withLock { state in
            state.addTrackedObject(
                address: address, metadata: metadata, label: label, stack: nil, scope: scope, time: time,
                stateCode: stateCode, internedStack: stackID)
        }
    }

    /// The interned allocation stack of the live object in `slot`, or -1.
    func stackID(slot: Int32) -> Int32 {
        state.withLock { state in
            let stack = state.object(inSlot: Int(slot)).stack
            return stack >= 0 ? stack : -1
        }
    }

    func unregister(slot: Int32, address: UInt) {
        let released: String? = state.withLock { state in
            guard state.isLive(slot: slot, address: address) else { return nil }
            return state.removeObject(slot: slot)
        }
        _ = released  // dropped here, after unlocking
    }

    /// Slot of any object: a `TrackedObject`'s own, or an external object's (tracking it when
    /// `trackIfNeeded`). Returns nil when tracking is off or the object is unknown.
    func slot(of object: AnyObject, trackIfNeeded: Bool, label: String? = nil) -> Int32? {
        if let tracked = object as? TrackedObject {
            let slot = tracked.leakGraphSlot
            return slot >= 0 ? slot : nil
        }
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let metadata = UInt(bitPattern: unsafeBitCast(type(of: object), to: UnsafeRawPointer.self))
        let time = coarseWallClockNanoseconds()
        let scope = trackIfNeeded ? LeakScope.currentScopeIDIfAny() : 0
        let depth = trackIfNeeded ? StackCapture.wanted() : 0
        let result: (Int32?, [WeakReference]) = StackCapture.withStack(depth: depth, skip: 1) { stack, _ in
            state.withLock { state in
                var dropped: [WeakReference] = []
                if let slot = state.externals[address] {
                    if state.weakReferences[slot]?.object === object { return (slot, dropped) }
                    // The address was reused by a new object: the old one is dead.
                    if let old = state.removeExternal(slot: slot) { dropped.append(old) }
                }
                guard trackIfNeeded else { return (nil, dropped) }
                let slot = state.addExternalObject(
                    address: address, metadata: metadata, label: label, stack: stack, scope: scope, time: time,
                    reference: WeakReference(object: object))
                return (slot, dropped)
            }
        }
        return result.0
    }

    /// Forgets external objects whose weak reference has gone nil.
    ///
    /// The references are tested outside the lock: loading a weak reference takes a strong one,
    /// and dropping it under the lock could run the object's deinit there.
    func pruneDeadExternals() {
        let candidates: [(slot: Int32, id: UInt64, reference: WeakReference)] = state.withLock { state in
            // Testing a weak reference takes a strong temporary: announced, so that no snapshot
            // counts it as a holder (see `ExternalLoads`).
            if !state.weakReferences.isEmpty { ExternalLoads.begin() }
            return state.weakReferences.map { ($0.key, state.object(inSlot: Int($0.key)).id, $0.value) }
        }
        guard !candidates.isEmpty else { return }
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() + 1)
        let dead = candidates.filter { $0.reference.object == nil }
        lg_set_releasing_snapshot(lg_get_releasing_snapshot() - 1)
        ExternalLoads.end()
        guard !dead.isEmpty else { return }
        let dropped: [WeakReference] = state.withLock { state in
            // Still the same registration (the id is never reused), so still dead: no load needed.
            dead.compactMap { entry in
                state.object(inSlot: Int(entry.slot)).id == entry.id ? state.removeExternal(slot: entry.slot) : nil
            }
        }
        _ = dropped
    }

    func setState(slot: Int32, _ objectState: ObjectState) {
        state.withLock { $0.setStateCode(objectState.code, slot: slot) }
    }

    func setOutsideHolder(slot: Int32, _ description: String?) {
        let old: String? = state.withLock { state in
            if let description { return state.outsideHolders.updateValue(description, forKey: slot) }
            return state.outsideHolders.removeValue(forKey: slot)
        }
        _ = old  // released outside the lock
    }

    func setLabel(slot: Int32, _ label: String?) {
        let old: String? = state.withLock { $0.replaceLabel(ofSlot: slot, with: label) }
        _ = old
    }

    // MARK: Edges

    func labelID(_ label: String) -> Int32 {
        state.withLock { $0.internLabel(label) }
    }

    func addEdge(from: Int32, to: Int32, kind: EdgeKind, label: Int32, recordSite: Bool = false) {
        let depth = recordSite && Configuration.shared.edgeSites.load(ordering: .relaxed) ? StackCapture.wanted() : 0
        guard depth > 0 else {
            // The common case (no site wanted): no stack buffer, no closure around the lock.
            state.withLock { $0.addEdge(from: from, to: to, kind: kind.code, label: label, site: -1) }
            return
        }
        StackCapture.withStack(depth: depth, skip: 1) { site, _ in
            state.withLock { state in
                let siteID = site.flatMap { state.internStack($0) } ?? -1
                state.addEdge(from: from, to: to, kind: kind.code, label: label, site: siteID)
            }
        }
    }

    func removeEdge(from: Int32, to: Int32, label: Int32) {
        state.withLock { state in _ = state.removeEdge(from: from, to: to, label: label) }
    }

    /// Removes the edge `from —label→ oldTarget` (if any) and adds `from —label→ newTarget`
    /// (if any) in one critical section.
    func replaceEdge(from: Int32, oldTarget: Int32?, newTarget: Int32?, kind: EdgeKind, label: Int32) {
        state.withLock { state in
            if let oldTarget { _ = state.removeEdge(from: from, to: oldTarget, label: label) }
            if let newTarget { state.addEdge(from: from, to: newTarget, kind: kind.code, label: label, site: -1) }
        }
    }

    func removeAllEdges(from: Int32, label: Int32) {
        state.withLock { state in state.removeOutEdges(of: from, label: label) }
    }

    /// Removes every edge from `from` labelled `label` or `otherLabel`, in one critical section.
    func removeAllEdges(from: Int32, label: Int32, or otherLabel: Int32) {
        state.withLock { state in state.removeOutEdges(of: from, label: label, or: otherLabel) }
    }

    /// Adds `from —label→ to` for each pair whose target is not -1, in one critical section.
    func addEdges(from: Int32, _ first: (to: Int32, label: Int32), _ second: (to: Int32, label: Int32), kind: EdgeKind)
    {
        state.withLock { state in
            if first.to >= 0 { state.addEdge(from: from, to: first.to, kind: kind.code, label: first.label, site: -1) }
            if second.to >= 0 {
                state.addEdge(from: from, to: second.to, kind: kind.code, label: second.label, site: -1)
            }
        }
    }
}

/// A weak reference to an object tracked with `LeakGraph.track` (the registry must never keep
/// such an object alive).
struct WeakReference: @unchecked Sendable {  // only touched under the registry lock
    weak var object: AnyObject?
}

func coarseWallClockNanoseconds() -> UInt64 {
    var now = timespec()
    #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
    #else
        clock_gettime(CLOCK_REALTIME, &now)
    #endif
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
