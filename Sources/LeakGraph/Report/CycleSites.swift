/// Where the cycles of one signature were made: a group of 200,001 identical leaks names every
/// line that made them with its count, not one example's site.
///
/// ```
/// Made at: 200000 × main.swift:60 (makeSessions()), 1 × main.swift:44 (makeFirst())
/// ```
public enum CycleSites {
    /// One place and how many cycles of the group were made there.
    public struct Site: Sendable, Hashable, Codable {
        /// `main.swift:60 (makeSessions())`, or `(no allocation stack)`.
        public var place: String
        /// Cycles made there.
        public var count: Int
    }

    /// Shown for cycles whose head has no recorded stack.
    public static let unknownPlace = "(no allocation stack)"

    /// The places that made `cycles` (one signature), most cycles first, then by place.
    ///
    /// A cycle's place is the allocation site of its member of the first cycle's head type (the
    /// object its loop starts from): cycles of one signature have one of each type, however their
    /// loops were rotated when they were found.
    public static func sites(of cycles: [Cycle], in snapshot: GraphSnapshot) -> [Site] {
        guard let first = cycles.first else { return [] }
        return sites(of: first, members: cycles.map(\.objects), in: snapshot, index: nil)
    }

    /// ``sites(of:in:)`` of a group given by its first cycle and every cycle's members (the
    /// first's included): a caller that holds the group as positions hands over the member
    /// lists, not copies of whole cycles; with `index` (the snapshot's objects') each member is
    /// found by one lookup, not a binary search over the objects — a cache miss a step, most of a
    /// group of 200,000 cycles.
    package static func sites(
        of first: Cycle, members: [[UInt64]], in snapshot: GraphSnapshot, index: NodeIndex?
    ) -> [Site] {
        guard let head = first.path.first?.from ?? first.objects.first else { return [] }
        let headType = snapshot.object(head)?.type
        // Counted by stack number (an integer hash per cycle), named once per stack after.
        var countOfStack: [Int: Int] = [:]
        var unknown = 0
        let objects = snapshot.objects
        for cycle in members {
            let positions = cycle.lazy.compactMap { id -> Int? in
                guard let index else { return snapshot.position(of: id) }
                let position = index.node(of: id)
                return position >= 0 ? position : nil
            }
            let member = positions.first { objects[$0].type == headType } ?? positions.first
            if let stack = member.flatMap({ objects[$0].stack }) {
                countOfStack[stack, default: 0] += 1
            } else {
                unknown += 1
            }
        }
        var counts: [String: Int] = [:]
        if unknown > 0 { counts[unknownPlace] = unknown }
        for (stack, count) in countOfStack {
            let place = snapshot.stack(stack)?.userFrameDescription.map(LeakTrace.placeDescription) ?? unknownPlace
            counts[place, default: 0] += count
        }
        return counts.map { Site(place: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.place < $1.place }
    }

    /// `Made at: 200000 × main.swift:60 (f()), 1 × main.swift:44 (g())`, at most `limit` places;
    /// nil when the cycles were all made at one place.
    public static func line(_ sites: [Site], limit: Int = 5) -> String? {
        guard sites.count > 1 else { return nil }
        var text = "Made at: " + sites.prefix(limit).map { "\($0.count) × \($0.place)" }.joined(separator: ", ")
        if sites.count > limit { text += " and \(sites.count - limit) more place(s)" }
        return text
    }
}
