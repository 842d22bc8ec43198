/// What changed between a checkpoint and now, by type: which objects are new, which survived,
/// which died — dotMemory Unit's checkpoint comparison, for tests.
///
/// ```swift
/// let before = LeakGraph.checkpoint(recordingLiveObjects: true)
/// screen.open(); screen.close()
/// let changes = LeakGraph.changes(since: before)
/// #expect(changes.new(ViewModel.self) == 0)
/// #expect(changes.dead(Session.self) == 0)
/// ```
public struct ObjectChanges: Sendable, Hashable {
    /// Objects allocated since the checkpoint and alive now, by type.
    public var new: [String: Int]
    /// Objects allocated before the checkpoint and alive now, by type.
    public var survived: [String: Int]
    /// Objects alive at the checkpoint that died since, by type; nil unless the checkpoint was
    /// taken with `recordingLiveObjects: true` (otherwise nothing says what was alive then).
    public var dead: [String: Int]?
    /// The ids of the new objects, ascending.
    public var newObjectIDs: [UInt64]
    /// The ids of the objects that died since the checkpoint, ascending (empty when `dead` is nil).
    public var deadObjectIDs: [UInt64]

    /// How many objects of `type` (exactly) are new.
    public func new<T: AnyObject>(_ type: T.Type) -> Int { new[Self.name(type)] ?? 0 }
    /// How many objects of `type` (exactly) survived.
    public func survived<T: AnyObject>(_ type: T.Type) -> Int { survived[Self.name(type)] ?? 0 }
    /// How many objects of `type` (exactly) died, nil when the checkpoint did not record.
    public func dead<T: AnyObject>(_ type: T.Type) -> Int? { dead.map { $0[Self.name(type)] ?? 0 } }

    /// The type's name as snapshots write it.
    static func name<T: AnyObject>(_ type: T.Type) -> String { displayTypeName(type) }
}

/// The objects alive when a recording checkpoint was taken.
final class LiveObjectRecord: Sendable {
    /// Ids, ascending, and each one's type metadata.
    let ids: [UInt64]
    let metadata: [UInt]

    init(ids: [UInt64], metadata: [UInt]) {
        self.ids = ids
        self.metadata = metadata
    }
}

extension LeakGraph {
    /// A checkpoint that also records which objects are alive, so that ``changes(since:)`` can
    /// tell which died. Costs one pass over the registry and 16 bytes per live object.
    public static func checkpoint(recordingLiveObjects: Bool) -> Checkpoint {
        var checkpoint = checkpoint()
        guard recordingLiveObjects else { return checkpoint }
        let live = Registry.shared.liveIDsAndMetadata()
        checkpoint.liveAtCheckpoint = LiveObjectRecord(ids: live.ids, metadata: live.metadata)
        return checkpoint
    }

    /// What is new, what survived and (with a recording checkpoint) what died since `checkpoint`,
    /// by type. One pass over the registry: no snapshot.
    public static func changes(since checkpoint: Checkpoint) -> ObjectChanges {
        let now = Registry.shared.liveIDsAndMetadata()
        let names = Snapshotter.typeNames(for: now.metadata)
        var new: [String: Int] = [:]
        var survived: [String: Int] = [:]
        var newIDs: [UInt64] = []
        for index in now.ids.indices {
            if now.ids[index] >= checkpoint.nextObjectID {
                new[names[index], default: 0] += 1
                newIDs.append(now.ids[index])
            } else {
                survived[names[index], default: 0] += 1
            }
        }
        var dead: [String: Int]?
        var deadIDs: [UInt64] = []
        if let record = checkpoint.liveAtCheckpoint {
            // Both id lists ascend: one merge finds the recorded ids no longer alive.
            var deadMetadata: [UInt] = []
            var position = 0
            for index in record.ids.indices {
                let id = record.ids[index]
                while position < now.ids.count && now.ids[position] < id { position += 1 }
                if position == now.ids.count || now.ids[position] != id {
                    deadIDs.append(id)
                    deadMetadata.append(record.metadata[index])
                }
            }
            var counts: [String: Int] = [:]
            for name in Snapshotter.typeNames(for: deadMetadata) { counts[name, default: 0] += 1 }
            dead = counts
        }
        return ObjectChanges(new: new, survived: survived, dead: dead, newObjectIDs: newIDs, deadObjectIDs: deadIDs)
    }
}

extension Registry {
    /// The ids (ascending) and type metadata of every live object.
    func liveIDsAndMetadata() -> (ids: [UInt64], metadata: [UInt]) {
        var pairs: [(id: UInt64, metadata: UInt)] = withStateForSnapshot { state in
            var pairs: [(id: UInt64, metadata: UInt)] = []
            pairs.reserveCapacity(state.liveCount)
            for slot in 0..<state.objectSlotCount {
                let object = state.object(inSlot: slot)
                if object.address != 0 { pairs.append((object.id, object.metadata)) }
            }
            return pairs
        }
        // Slots are reused, so ids are not in slot order.
        pairs.sort { $0.id < $1.id }
        return (pairs.map(\.id), pairs.map(\.metadata))
    }
}
