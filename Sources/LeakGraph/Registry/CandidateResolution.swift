/// Decides which compared words are owning references (see ``CandidateReference``): those whose
/// target's retain count has exactly as many references unexplained by every other edge as
/// words point at it. One pass over the edges and one over the candidates.
///
/// A suspended task's frames hold owned references and copies borrowed from them side by side,
/// and nothing in memory tells them apart, so their words outnumber what they own. Where one
/// task's frames — or one task family's: a task and the child tasks under it (a group's, an
/// `async let`'s), none of which finishes while another waits — are the only words at an object
/// and outnumber its unexplained references, those references are the task's — provided nothing
/// outside the graph holds the object (``OutsideHolders``: globals and stacks, directly or through
/// objects tracking did not record). Where something does, one reference is left to it: the
/// object stays held from outside (a producer that can still resume the task), and the frames are
/// credited with the rest. Where the frames' words are exactly as many as the unexplained
/// references, only a global is asked about: an actor singleton's run loop (`static let shared`,
/// its isolated task's frames holding the actor twice, an owned reference and a borrowed copy)
/// is held by its global, not leaked; a stack's word there may be a returned frame's, stale, and
/// would take a leaked cycle's reference away.
///
/// Why exactly that many: an `Unmanaged.passRetained` word, or a live tail slot, is a retain the
/// graph otherwise cannot show, so the count has room for it; a stale slot or an unretained
/// `Unmanaged` points at an object whose count has no such room (it would then be explained
/// twice). Where the numbers differ nothing is counted, and the region stays unread (unless the
/// target has no unexplained reference at all: then the word holds nothing the graph misses): a
/// verdict may then be "possible leak", never a false "leaked".
enum CandidateResolution {
    /// Adds the confirmed candidates to `edges` as `.unmanaged` edges (and unconfirmed
    /// `Unmanaged` fields as `.unknown` ones); returns the regions that are not accounted for, as
    /// unread records.
    ///
    /// - Parameter heldFromOutside: of the given positions (the objects' addresses given beside
    ///   them), those something outside the graph holds, with how many references were found, and
    ///   those a global holds (see ``OutsideHolders``); the flag says whether stacks are to be
    ///   looked at too. Nil: not asked, so a task's frames are credited where the counts match
    ///   exactly.
    static func resolve(
        _ candidates: [CandidateReference], regions: [UntypedRegion], edges: inout [EdgeInfo], objects: [ObjectInfo],
        retainCounts: [Int], heldFromOutside: (([Int], [UInt], Bool) -> OutsideHolders.Found)? = nil
    ) -> [UnreadReferenceInfo] {
        let index = NodeIndex(objects)
        var unexplained = retainCounts
        for edge in edges where edge.kind.keepsAlive {
            let target = index.node(of: edge.to)
            if target >= 0 { unexplained[target] -= edge.count }
        }
        var pointing = [Int](repeating: 0, count: objects.count)
        for candidate in candidates { pointing[candidate.to] += 1 }
        var regions = regions
        let credits =
            heldFromOutside.map { ask in
                taskCredits(candidates, pointing: pointing, unexplained: unexplained) {
                    ask($0, objects.map(\.address), $1)
                }
            } ?? [:]
        var credited: Set<Int> = []
        // One edge per owner, target, label and kind, counted.
        var added: [EdgeKey: Int] = [:]
        var newEdges: [EdgeInfo] = []
        for candidate in candidates {
            let kind: EdgeKind
            if let credit = credits[candidate.to] {
                // The one task's words at it are one edge, counted as the references it owns.
                if credit > 0, credited.insert(candidate.to).inserted {
                    newEdges.append(
                        EdgeInfo(
                            from: objects[candidate.from].id, to: objects[candidate.to].id, kind: .unmanaged,
                            label: candidate.label, origin: .reflected, count: credit))
                }
                continue
            } else if pointing[candidate.to] == unexplained[candidate.to] {
                kind = .unmanaged
            } else {
                // A word at an object whose every reference is explained already holds nothing the
                // graph misses (a borrowed copy in a frame); otherwise the memory stays unread.
                let unexplainedRemain = unexplained[candidate.to] > 0
                let isUnmanagedField = candidate.region < 0
                if !isUnmanagedField && unexplainedRemain { regions[Int(candidate.region)].isAccountedFor = false }
                // Drawn, never owning: an `Unmanaged`, or a task's word at an object with
                // references nothing explains (the task may hold it).
                guard isUnmanagedField || (candidate.isTaskWord && unexplainedRemain) else { continue }
                kind = .unknown
            }
            let key = EdgeKey(from: candidate.from, to: candidate.to, label: candidate.label, kind: kind)
            if let existing = added[key] {
                newEdges[existing].count += 1
            } else {
                added[key] = newEdges.count
                newEdges.append(
                    EdgeInfo(
                        from: objects[candidate.from].id, to: objects[candidate.to].id, kind: kind,
                        label: candidate.label, origin: .reflected))
            }
        }
        edges += newEdges
        var seen: Set<UnreadKey> = []
        var unread: [UnreadReferenceInfo] = []
        for region in regions where !region.isAccountedFor {
            guard seen.insert(UnreadKey(owner: region.owner, why: region.why)).inserted else { continue }
            unread.append(UnreadReferenceInfo(object: objects[region.owner].id, place: region.place, why: region.why))
        }
        return unread
    }

    /// The objects one suspended task's (or task family's) frames alone point at at least as often
    /// as their references nothing else explains, with how many of those references the frames
    /// are credited with: all of them, or all but one where something outside the graph holds the
    /// object too (where the words are exactly as many, a global).
    private static func taskCredits(
        _ candidates: [CandidateReference], pointing: [Int], unexplained: [Int],
        _ heldFromOutside: ([Int], Bool) -> OutsideHolders.Found
    ) -> [Int: Int] {
        // The one task family whose words point at each target (-1: other words point at it too).
        var taskOfTarget: [Int: Int] = [:]
        for candidate in candidates {
            let task = candidate.isTaskWord ? (candidate.family >= 0 ? candidate.family : candidate.from) : -1
            if let known = taskOfTarget[candidate.to], known != task {
                taskOfTarget[candidate.to] = -1
            } else {
                taskOfTarget[candidate.to] = task
            }
        }
        let targets = taskOfTarget.compactMap { target, task in
            task >= 0 && unexplained[target] > 0 && pointing[target] >= unexplained[target] ? target : nil
        }.sorted()
        guard !targets.isEmpty else { return [:] }
        // Stacks are looked at only where the frames outnumber the references (see the type's
        // documentation): where they match, only a global's word takes one of them.
        let outnumbered = targets.contains { pointing[$0] > unexplained[$0] }
        let outside = heldFromOutside(targets, outnumbered)
        var credits: [Int: Int] = [:]
        for target in targets {
            let isHeld =
                pointing[target] > unexplained[target]
                ? outside.references[target] != nil : outside.heldByGlobals.contains(target)
            credits[target] = unexplained[target] - (isHeld ? 1 : 0)
        }
        return credits
    }

    /// `records` with `more` added, in the snapshot's order (by object, then place).
    static func adding(_ more: [UnreadReferenceInfo], to records: [UnreadReferenceInfo]) -> [UnreadReferenceInfo] {
        guard !more.isEmpty else { return records }
        return (records + more).sorted { ($0.object, $0.place) < ($1.object, $1.place) }
    }

    private struct EdgeKey: Hashable {
        let from: Int
        let to: Int
        let label: String
        let kind: EdgeKind
    }

    private struct UnreadKey: Hashable {
        let owner: Int
        let why: String
    }
}
