/// What a second look at some objects needs to confirm a *leaked* verdict: for each, whether it
/// is still alive, its retain count and its declared strong in-edges (an order-independent
/// hash of each edge's owner id, label and count).
///
/// 16 bytes: both looks keep one for every leaked object (a dump at exit of a million leaked
/// objects held two arrays of the 40-byte form, 80 MB, at its peak).
struct Fingerprint: Equatable {
    /// ``absent``, ``unknownRetainCount`` or the retain count (saturated at `Int32.max`).
    private var state = Fingerprint.absent
    /// The strong in-edges added.
    private(set) var edgeCount: UInt32 = 0
    private var edgeHash: UInt64 = 0

    private static let absent: Int32 = -2
    private static let unknownRetainCount: Int32 = -1

    /// Whether the object was seen alive.
    var present: Bool { state != Self.absent }

    /// Marks the object alive with `retainCount` (nil when the look could not read it).
    mutating func markPresent(retainCount: Int?) {
        state = retainCount.map { Int32(clamping: max(0, $0)) } ?? Self.unknownRetainCount
    }

    /// Adds one strong in-edge.
    mutating func add(from: UInt64, labelHash: Int, count: Int) {
        var hasher = Hasher()
        hasher.combine(from)
        hasher.combine(labelHash)
        hasher.combine(count)
        edgeCount &+= 1
        edgeHash &+= UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

extension Snapshotter {
    /// The fingerprints of `ids` exactly as a declared-only snapshot would give them, read
    /// straight from the registry: no type names, labels, stacks or edge records are built for
    /// the million objects that are not asked about (a declared-only snapshot of a million
    /// objects takes about a second; this, a tenth of that).
    ///
    /// Like a declared-only snapshot it retains nothing: retain counts are read under the
    /// registry lock, deinitialising objects are skipped, and holds that other snapshots are
    /// still letting go of are subtracted.
    static func declaredFingerprints(_ registry: Registry, ids: [UInt64]) -> [Fingerprint] {
        withoutReleasesUnderway { readFingerprints(registry, ids: ids) }
    }

    private static func readFingerprints(_ registry: Registry, ids: [UInt64]) -> [Fingerprint] {
        var fingerprints = [Fingerprint](repeating: Fingerprint(), count: ids.count)
        let wanted = NodeIndex(ids: ids)
        // As in `take`: no other strong temporary of an external object exists while counting.
        ExternalLoads.withSettledState(of: registry) { state in
            // Strong temporaries of external objects, released once the lock is left.
            var externals: [Unmanaged<AnyObject>] = []
            // Per slot: its retain count, or -1 when it is not alive.
            var counts = [Int](repeating: -1, count: state.objectSlotCount)
            for slot in 0..<state.objectSlotCount {
                let entry = state.object(inSlot: slot)
                guard entry.address != 0, let pointer = UnsafeMutableRawPointer(bitPattern: entry.address) else {
                    continue
                }
                if entry.isExternal {
                    guard let strong = retainedExternal(state.weakReferences[Int32(slot)]) else { continue }
                    externals.append(strong)
                    counts[slot] = runtimeRetainCount(pointer) - 1
                } else {
                    guard !runtimeIsDeallocating(pointer) else { continue }
                    counts[slot] = runtimeRetainCount(pointer)
                }
            }
            // Read after every count, as `take` does (see there why the order matters).
            let listed = releasing.withLock { $0.listed }
            let othersHold = listed.isEmpty ? [:] : HoldLedger.counts(listed)
            var fingerprintOfSlot = [Int32](repeating: -1, count: state.objectSlotCount)
            for slot in 0..<state.objectSlotCount where counts[slot] >= 0 {
                let entry = state.object(inSlot: slot)
                if let holds = othersHold[entry.address] { counts[slot] = max(0, counts[slot] - holds) }
                // An object only LeakGraph holds is freed as soon as it lets go: not alive.
                if counts[slot] == 0 { counts[slot] = -1 }
                let wantedAt = wanted.node(of: entry.id)
                guard counts[slot] > 0, wantedAt >= 0 else { continue }
                fingerprintOfSlot[slot] = Int32(wantedAt)
                fingerprints[wantedAt].markPresent(retainCount: counts[slot])
            }
            var labelHashes = [Int?](repeating: nil, count: state.labels.count)
            for index in 0..<state.edgeSlotCount {
                let edge = state.edge(inSlot: index)
                guard edge.from >= 0 && EdgeKind(code: edge.kind).keepsAlive else { continue }
                let target = Int(fingerprintOfSlot[Int(edge.to)])
                guard target >= 0, counts[Int(edge.from)] > 0 else { continue }
                let labelHash = labelHashes[Int(edge.label)] ?? state.labels[Int(edge.label)].hashValue
                labelHashes[Int(edge.label)] = labelHash
                fingerprints[target].add(
                    from: state.object(inSlot: Int(edge.from)).id, labelHash: labelHash, count: Int(edge.count))
            }
            return externals
        }
        return fingerprints
    }
}
