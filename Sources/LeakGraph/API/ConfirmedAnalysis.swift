import CLeakGraphSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LeakGraph {
    /// Takes a snapshot, analyses it and confirms every *leaked* verdict against a second
    /// snapshot, for use while other threads may be changing the graph.
    ///
    /// A snapshot copies the declared edges at one instant but reads retain counts a moment
    /// later; if a thread drops a reference in between, a live object can look explained by an
    /// edge that no longer exists. A real leak cannot change (nothing can reach it), so a verdict
    /// is kept only when a second, declared-only look finds the same retain count and the same
    /// declared in-edges for every member. Unconfirmed cycles are reported as retained.
    ///
    /// Cost: one snapshot when nothing leaked, plus a second look at the leaked objects alone
    /// otherwise.
    public static func findLeaks(options: SnapshotOptions = .default) -> (snapshot: GraphSnapshot, report: LeakReport) {
        let first = snapshot(options: options)
        let disposalLabels = LeakAdvice.disposalLabels
        let firstReport = LeakDetector.analyze(first, disposalLabels: disposalLabels)
        guard firstReport.hasLeaks else { return (first, firstReport) }
        // The second look reads only what can have moved under a racing thread: retain counts
        // and declared edges (cheap: nothing is held, nothing is reflected).
        // Nodes that discovery added (shared storage, untracked objects) exist only in a walked
        // snapshot: when a leak goes through one, the second look walks again, and every strong
        // in-edge is compared, not only declared ones. It holds and walks the suspects alone:
        // every strong in-edge of a leaked object comes from a leaked object, and a new holder
        // from outside shows as a changed retain count. Objects recorded by whole-process
        // tracking are not in the registry either.
        let throughDiscovered =
            ProcessTracking.isActive || firstReport.leakedObjectIDs.contains { $0 >= ObjectInfo.discoveredNodeIDBase }
        // The leaked ids in a fixed order (ascending, without sorting: the snapshot's objects
        // are): both looks fill arrays in this order and compare them slot by slot (no hashing
        // per object or edge). Sorted after all if the snapshot's order cannot give them.
        let firstIndex = NodeIndex(first.objects)
        var leakedIDs = firstIndex.inOrder(firstReport.leakedObjectIDs)
        if leakedIDs.count != firstReport.leakedObjectIDs.count
            || !leakedIDs.indices.dropFirst().allSatisfy({ leakedIDs[$0 - 1] < leakedIDs[$0] })
        {
            leakedIDs = firstReport.leakedObjectIDs.sorted()
        }
        // Discovered nodes are found again by walking the objects that hold them (only a walked
        // second look needs them).
        let suspects = throughDiscovered ? leakedIDs.filter { $0 < ObjectInfo.discoveredNodeIDBase } : []
        let before = Fingerprints(first, ids: leakedIDs, declaredOnly: !throughDiscovered, index: firstIndex)
        // Another thread's snapshot letting go of its holds at that very moment over-counts a
        // retain count for an instant: a real leak cannot change, so look again (a few times,
        // a millisecond apart) before calling a difference real.
        // What did not match: usually nothing, so nothing is rebuilt (a set of a million
        // confirmed ids and a lookup per cycle member were a tenth of a big dump at exit).
        var unconfirmed = Set<UInt64>()
        for attempt in 0..<5 {
            if attempt > 0 { usleep(1_000) }
            // Declared-only, the second look reads the few numbers it compares straight from the
            // registry instead of building a whole snapshot.
            let after =
                throughDiscovered
                ? Fingerprints(
                    Snapshotter.take(Registry.shared, options: options, only: suspects), ids: leakedIDs,
                    declaredOnly: false
                ).values
                : Snapshotter.declaredFingerprints(Registry.shared, ids: leakedIDs)
            unconfirmed = []
            for (slot, id) in leakedIDs.enumerated() where before.values[slot] != after[slot] {
                unconfirmed.insert(id)
            }
            if unconfirmed.isEmpty { break }
        }
        var report = firstReport
        if !unconfirmed.isEmpty {
            report.leakedObjectIDs.subtract(unconfirmed)
            for index in report.cycles.indices where report.cycles[index].leaked {
                if report.cycles[index].objects.contains(where: unconfirmed.contains) {
                    report.cycles[index].leaked = false
                    report.leakedObjectIDs.subtract(report.cycles[index].objects)
                }
            }
        }
        if report.leakedObjectIDs.count != firstReport.leakedObjectIDs.count {
            // Objects no longer called leaked get their lifecycle verdicts.
            (report.neverFinished, report.canNeverFinish) = LifecycleAnalysis.activeObjects(
                in: first, leaked: report.leakedObjectIDs, disposalLabels: disposalLabels)
        }
        return (first, report)
    }

    /// ``findLeaks(options:)`` with the snapshot's stacks and closures symbolicated: where every
    /// leak description starts (test failures, the process check, `expectDeallocation`, the
    /// dump at exit), before ``LeakTrace`` and the exporters turn it into text and pictures.
    ///
    /// - Parameter stacksFor: the ids of the stacks the caller will show, given the snapshot and
    ///   its report (nil: every stack): the others keep their raw addresses.
    package static func findLeaksToDescribe(
        options: SnapshotOptions = .default, stacksFor: ((GraphSnapshot, LeakReport) -> Set<Int>)? = nil
    ) -> (snapshot: GraphSnapshot, report: LeakReport) {
        // This thread's frames hold the addresses looked for: no other thread's look names them.
        lg_analysis_enter()
        defer { lg_analysis_leave() }
        var found = findLeaks(options: options)
        let wanted = stacksFor.map { $0(found.snapshot, found.report) }
        // Stacks, closures, field declarations and globals: one symbolizer for all of them.
        return ExternalSymbolizer.shared.withSession {
            // Taken out of `found`, so that naming changes the only copy of its arrays in place
            // (while `found` shared them, the first name written copied a million objects).
            var snapshot = found.snapshot
            found.snapshot = GraphSnapshot(objects: [], edges: [])
            Symbolicator.symbolicate(&snapshot, stacks: wanted)
            snapshot.fieldDeclarations = FieldDeclarations.find(for: found.report.cycles, in: snapshot)
            nameOutsideHolders(in: &snapshot, report: found.report)
            guard !found.report.possibleLeaks.isEmpty else { return (snapshot, found.report) }
            var report = found.report
            let index = NodeIndex(snapshot.objects)
            report.possibleLeaks = found.report.possibleLeaks.filter {
                !isHeldByNamedHolders($0, report: found.report, snapshot: snapshot, index: index)
            }
            return (snapshot, report)
        }
    }

    /// Whether every reference the graph does not show into `leak` (its cycle's holders from
    /// outside, or the object) is a global's that was named: then those are
    /// its holders, not the unread memory it reaches, and it is retained, not possibly leaked (a
    /// singleton's `static let shared` whose run-loop task waits on what the singleton holds).
    static func isHeldByNamedHolders(
        _ leak: PossibleLeak, report: LeakReport, snapshot: GraphSnapshot, index: NodeIndex
    ) -> Bool {
        let holders: [(object: UInt64, unexplained: Int)]
        if let cycle = leak.cycle, report.cycles.indices.contains(cycle) {
            holders = report.cycles[cycle].unexplainedHolders.map { ($0.object, $0.unexplained) }
        } else if let object = leak.object {
            holders = [(object, leak.unexplained)]
        } else {
            return false
        }
        return !holders.isEmpty
            && holders.allSatisfy { holder in
                let position = index.node(of: holder.object)
                guard position >= 0 else { return false }
                let object = snapshot.objects[position]
                // Globals only: a word on a thread's stack may be a stale copy (sanitizers' larger
                // frames leave many), which must not turn a possible leak into silence.
                return object.heldByGlobals.count >= holder.unexplained
            }
    }

    /// Names the globals and the threads' stacks holding the objects whose holders the graph
    /// does not show: unknown owners and retained cycles' members held from outside
    /// (``ObjectInfo/heldByGlobals``, ``ObjectInfo/outsideHolders``).
    private static func nameOutsideHolders(in snapshot: inout GraphSnapshot, report: LeakReport) {
        var ids = Set(report.unknownOwners.map(\.object))
        for cycle in report.cycles where !cycle.leaked { ids.formUnion(cycle.unexplainedHolders.map(\.object)) }
        guard !ids.isEmpty else { return }
        let index = NodeIndex(snapshot.objects)
        var positionOfAddress: [UInt: Int] = [:]
        for id in ids {
            let position = index.node(of: id)
            if position >= 0, snapshot.objects[position].address != 0 {
                positionOfAddress[snapshot.objects[position].address] = position
            }
        }
        let addresses = Array(positionOfAddress.keys)
        for (address, names) in GlobalHolders.names(holding: addresses) {
            if let position = positionOfAddress[address] { snapshot.objects[position].heldByGlobals = names }
        }
        for (address, names) in StackHolders.names(holding: addresses) {
            if let position = positionOfAddress[address] { snapshot.objects[position].outsideHolders += names }
        }
    }
}

/// The ``Fingerprint`` of each of `ids` in a snapshot; `values[i]` describes `ids[i]`.
private struct Fingerprints {
    var values: [Fingerprint]

    /// - Parameter index: `snapshot`'s objects' index, when the caller has one already.
    init(_ snapshot: GraphSnapshot, ids: [UInt64], declaredOnly: Bool, index: NodeIndex? = nil) {
        values = [Fingerprint](repeating: Fingerprint(), count: ids.count)
        let index = index ?? NodeIndex(snapshot.objects)
        // Node → slot in `ids`, so that each edge costs two array lookups.
        var slotOfNode = [Int32](repeating: -1, count: snapshot.objects.count)
        for (slot, id) in ids.enumerated() {
            let node = index.node(of: id)
            guard node >= 0 else { continue }
            slotOfNode[node] = Int32(slot)
            values[slot].markPresent(retainCount: snapshot.objects[node].strongRetainCount)
        }
        // Labels are few: hash each distinct one once.
        var recentLabels: [(label: String, hash: Int)] = []
        for edge in snapshot.edges where edge.kind.keepsAlive && (edge.origin == .declared || !declaredOnly) {
            let node = index.node(of: edge.to)
            guard node >= 0, case let slot = Int(slotOfNode[node]), slot >= 0 else { continue }
            let labelHash: Int
            if let known = recentLabels.first(where: { $0.label == edge.label }) {
                labelHash = known.hash
            } else {
                labelHash = edge.label.hashValue
                if recentLabels.count == 4 { recentLabels.removeFirst() }
                recentLabels.append((edge.label, labelHash))
            }
            values[slot].add(from: edge.from, labelHash: labelHash, count: edge.count)
        }
    }
}
