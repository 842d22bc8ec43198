/// Finds reference cycles in a snapshot and tells leaked ones from ones that are merely alive.
///
/// Strongly connected components of strong edges are found with an iterative Tarjan search
/// (linear time, no recursion, no cycle-length cap). The verdict is a cycle collector's trial
/// deletion: a component is *leaked* when every member's runtime strong retain count is explained
/// by strong edges from inside it or from other leaked objects; otherwise it is *retained* and
/// the members with unexplained holders are named. Because the count only ever adds holders the
/// graph does not show, an incomplete graph can make a leak look retained, never the reverse.
///
/// ```swift
/// let report = LeakDetector.analyze(LeakGraph.snapshot())
/// for cycle in report.leakedCycles { print(cycle.loopDescription) }
/// ```
///
/// Cost: O(objects + edges); about 0.25–0.3 s for 1,000,000 objects and 2,000,000 edges.
public enum LeakDetector {
    /// Analyses `snapshot`.
    ///
    /// - Parameter disposalLabels: Labels of declared references that only dispose, for the
    ///   lifecycle verdicts (``LeakReport/neverFinished``, ``LeakReport/canNeverFinish``; see
    ///   ``LifecycleAnalysis``). Empty follows every reference, which can only say "never
    ///   finished" where "can never finish" was true; ``LeakGraph/findLeaks(options:)`` passes
    ///   the labels libraries registered.
    public static func analyze(_ snapshot: GraphSnapshot, disposalLabels: Set<String> = []) -> LeakReport {
        let graph = StrongGraph(snapshot)
        let components = graph.stronglyConnectedComponents()
        var report = Verdicts(snapshot: snapshot, graph: graph, components: components).report()
        (report.neverFinished, report.canNeverFinish) = LifecycleAnalysis.activeObjects(
            in: snapshot, leaked: report.leakedObjectIDs, disposalLabels: disposalLabels)
        addUnreadReach(to: &report, in: snapshot, graph: graph)
        KnownLeaks.classify(&report, in: snapshot)
        return report
    }

    /// Fills `report`'s ``LeakReport/possibleLeaks`` and marks the unknown owners that reach
    /// memory discovery could not read: for a report read back from a dump, which ``analyze``
    /// did not make. Nothing to do (and no cost) when the snapshot has no unread records.
    public static func addUnreadReach(to report: inout LeakReport, in snapshot: GraphSnapshot) {
        guard !snapshot.unreadReferences.isEmpty else { return }
        addUnreadReach(to: &report, in: snapshot, graph: StrongGraph(snapshot))
    }

    private static func addUnreadReach(to report: inout LeakReport, in snapshot: GraphSnapshot, graph: StrongGraph) {
        guard !snapshot.unreadReferences.isEmpty else { return }
        // One index of ids for the three passes (each made its own).
        let index = NodeIndex(snapshot.objects)
        let nearest = UnreadReach.nearestUnread(snapshot, graph: graph, index: index)
        report.possibleLeaks =
            UnreadReach.possibleLeaks(snapshot, report: report, nearest: nearest, index: index)
            + UnreadReach.possibleLeakedObjects(
                snapshot, graph: graph, index: index, unknownOwners: report.unknownOwners)
        for position in report.unknownOwners.indices {
            let node = index.node(of: report.unknownOwners[position].object)
            if node >= 0, nearest[node] >= 0 { report.unknownOwners[position].reachesUnreadMemory = true }
        }
    }
}

/// Computes verdicts, loops and signatures from the components.
private struct Verdicts {
    let snapshot: GraphSnapshot
    let graph: StrongGraph
    let components: Components
    var component: [Int32] { components.component }
    /// Each label's place in the sorted labels: loops compare labels as integers.
    let labelRank: [Int32]

    init(snapshot: GraphSnapshot, graph: StrongGraph, components: Components) {
        self.snapshot = snapshot
        self.graph = graph
        self.components = components
        var rank = [Int32](repeating: 0, count: graph.labelNames.count)
        for (place, label) in graph.labelNames.indices.sorted(by: { graph.labelNames[$0] < graph.labelNames[$1] })
            .enumerated()
        {
            rank[label] = Int32(place)
        }
        labelRank = rank
    }

    /// Retain counts as the verdict uses them: clamped so that hand-made or damaged inputs
    /// cannot overflow the arithmetic.
    private func retainCount(_ node: Int) -> Int? {
        snapshot.objects[node].strongRetainCount.map { min(max($0, 0), 1 << 40) }
    }

    func report() -> LeakReport {
        // The graph's arrays as locals: unoptimised (LEAKGRAPH_UNOPTIMIZED_DEBUG), each
        // `graph.…[…]` copied the graph.
        let count = graph.count
        let offsets = graph.offsets
        let targets = graph.targets
        let weights = graph.weights
        var internalWeight = [Int](repeating: 0, count: count)
        var fromGarbage = [Int](repeating: 0, count: count)
        let component = components.component
        var garbage = [Bool](repeating: false, count: components.count)
        var isCycle = [Bool](repeating: false, count: components.count)
        // Tarjan emits sinks first; holders must be decided before what they hold.
        for componentID in stride(from: components.count - 1, through: 0, by: -1) {
            let group = components.bounds(componentID)
            isCycle[componentID] = group.count > 1 || graph.hasSelfLoop(Int(components.nodes[group.lowerBound]))
            for position in group {
                let node = Int(components.nodes[position])
                for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                    let target = Int(targets[edge])
                    if component[target] == Int32(componentID) { internalWeight[target] += Int(weights[edge]) }
                }
            }
            var collectable = true
            for position in group {
                let node = Int(components.nodes[position])
                guard let retainCount = retainCount(node),
                    retainCount <= internalWeight[node] + fromGarbage[node],
                    isCycle[componentID] || fromGarbage[node] > 0
                else {
                    collectable = false
                    break
                }
            }
            guard collectable else { continue }
            garbage[componentID] = true
            for position in group {
                let node = Int(components.nodes[position])
                for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                    let target = Int(targets[edge])
                    if component[target] != Int32(componentID) { fromGarbage[target] += Int(weights[edge]) }
                }
            }
        }

        var leaked = Set<UInt64>()
        var garbageCount = 0
        for componentID in 0..<components.count where garbage[componentID] {
            garbageCount += components.bounds(componentID).count
        }
        leaked.reserveCapacity(garbageCount)
        var cycles: [Cycle] = []
        // Member node → (its cycle, its place among the cycle's holders): naming known holders
        // is then one lookup per edge, linear however many outside holders there are.
        // (By node, in two arrays made at the first such member: a dictionary grew and was
        // looked up once per edge, a tenth of the detection of a million objects.)
        var retainedCycleOfNode: [Int32] = []
        var holderPlaceOfNode: [Int32] = []
        // Each cycle's description (its loop, path and signature) depends on nothing but the
        // graph: with many cycles, the later three fifths are described on another thread while
        // this one fills the set of leaked ids (a hash insert per object, most of it a miss of
        // the cache) and describes the rest.
        let cycleComponents = (0..<components.count).filter { isCycle[$0] }
        var later: BackgroundResult<[Cycle]>?
        var split = cycleComponents.count
        if cycleComponents.count >= 20_000 {
            split = cycleComponents.count * 2 / 5
            let verdicts = self
            let garbageOfComponent = garbage
            let part = cycleComponents[split...]
            later = BackgroundResult { verdicts.describe(part, garbage: garbageOfComponent) }
        }
        for componentID in 0..<components.count where garbage[componentID] {
            for position in components.bounds(componentID) {
                leaked.insert(snapshot.objects[Int(components.nodes[position])].id)
            }
        }
        var described = describe(cycleComponents[..<split], garbage: garbage)
        if let later {
            let split = described.count
            described.append(contentsOf: later.value)
            Self.shareTexts(in: &described, from: split)
        }
        for (place, componentID) in cycleComponents.enumerated() where !garbage[componentID] {
            for node in components.nodes[components.bounds(componentID)].sorted() {
                let node = Int(node)
                let unexplained = (retainCount(node) ?? 0) - internalWeight[node] - fromGarbage[node]
                if unexplained > 0 || snapshot.objects[node].strongRetainCount == nil {
                    if retainedCycleOfNode.isEmpty {
                        retainedCycleOfNode = [Int32](repeating: -1, count: count)
                        holderPlaceOfNode = [Int32](repeating: -1, count: count)
                    }
                    retainedCycleOfNode[node] = Int32(place)
                    holderPlaceOfNode[node] = Int32(described[place].unexplainedHolders.count)
                    described[place].unexplainedHolders.append(
                        Cycle.Holder(
                            object: snapshot.objects[node].id, unexplained: max(0, unexplained), knownHolders: []))
                }
            }
        }
        cycles = consume described
        // Name the known outside holders of retained cycles' members.
        if !retainedCycleOfNode.isEmpty {
            for node in 0..<count {
                for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                    let target = Int(targets[edge])
                    let cycle = Int(retainedCycleOfNode[target])
                    guard cycle >= 0, component[target] != component[node] else { continue }
                    cycles[cycle].unexplainedHolders[Int(holderPlaceOfNode[target])].knownHolders.append(
                        snapshot.objects[node].id)
                }
            }
        }
        Self.putInReportOrder(&cycles)

        var unknownOwners: [UnknownOwner] = []
        var finished: [UInt64] = []
        let objects = snapshot.objects
        for node in 0..<count {
            // Fields read in place: a copy of each object would retain and release its strings.
            if objects[node].state.isFinished { finished.append(objects[node].id) }
            guard !isCycle[Int(component[node])], !garbage[Int(component[node])],
                let retainCount = retainCount(node), retainCount > graph.inWeight[node]
            else { continue }
            unknownOwners.append(
                UnknownOwner(object: objects[node].id, unexplained: retainCount - graph.inWeight[node]))
        }
        return LeakReport(
            cycles: cycles, leakedObjectIDs: leaked, unknownOwners: unknownOwners, finishedButHeld: finished)
    }

    /// Gives the cycles from `split` on the loop texts and signatures of those before it where
    /// they are equal.
    ///
    /// Each thread described its cycles with texts of its own. Two copies of one text compare
    /// by normalising their Unicode (the arrows are not ASCII): about 450 instructions, where the
    /// same storage compares in one. Once the report's order interleaves the two parts, every
    /// pass that groups cycles by signature (the report's order, the library-leak verdicts, the
    /// field declarations, the picture, the tools) paid that per cycle. A lookup per run of one
    /// text instead: consecutive cycles of one part share their strings.
    /// (In place, the second part starting at `split`: a copy of the cycles array was 30 MB.)
    private static func shareTexts(in cycles: inout [Cycle], from split: Int) {
        var shared: [String: (signature: String, loop: String)] = [:]
        var previous: String?
        for index in 0..<split where cycles[index].signature != previous {
            let signature = cycles[index].signature
            previous = signature
            if shared[signature] == nil { shared[signature] = (signature, cycles[index].loopDescription) }
        }
        var run: (own: String, shared: (signature: String, loop: String))?
        for index in split..<cycles.count {
            let signature = cycles[index].signature
            if run?.own != signature {
                let texts = shared[signature] ?? (signature, cycles[index].loopDescription)
                if shared[signature] == nil { shared[signature] = texts }
                run = (signature, texts)
            }
            guard let run else { continue }
            cycles[index].signature = run.shared.signature
            cycles[index].loopDescription = run.shared.loop
        }
    }

    /// The cycles of `componentIDs`, in order, each described with the verdict `garbage` gives.
    private func describe(_ componentIDs: ArraySlice<Int>, garbage: [Bool]) -> [Cycle] {
        var scratch = LoopScratch()
        var cycles: [Cycle] = []
        cycles.reserveCapacity(componentIDs.count)
        for componentID in componentIDs {
            cycles.append(describe(components.bounds(componentID), leaked: garbage[componentID], scratch: &scratch))
        }
        return cycles
    }

    /// Buffers `describe` reuses from one cycle to the next (hundreds of thousands of small
    /// cycles would otherwise allocate several arrays and a dictionary each).
    struct LoopScratch {
        /// Visited nodes in breadth-first order, with the queue position and label of the step
        /// that reached each.
        var queue: [Int32] = []
        var parent: [Int32] = []
        var parentLabel: [Int32] = []
        /// Node → queue position, for components too big to search the queue linearly.
        var position: [Int32: Int32] = [:]
        var neighbours: [(target: Int32, label: Int32)] = []
        /// The shape of the loop being described, and the texts of shapes seen before.
        var shape = Shape()
        /// Shapes are copied only when first seen: a copy kept of `shape` would make the next
        /// loop's reuse of its buffers allocate.
        var known: [(shape: Shape, loop: String, signature: String)] = []
        var knownIndex: [Shape: Int] = [:]
        var lastKnown = -1
    }

    /// Whether node `a` comes before node `b` in canonical order: by type, label, then id.
    /// (Field by field: copying the two objects would retain and release all their strings.)
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let objects = snapshot.objects
        // `<` first: different types are then mostly told apart by one comparison, not two.
        if objects[a].type < objects[b].type { return true }
        if objects[b].type < objects[a].type { return false }
        if objects[a].label != objects[b].label { return (objects[a].label ?? "") < (objects[b].label ?? "") }
        return objects[a].id < objects[b].id
    }

    /// A loop's text and signature, keyed by what they are made of (the start's type, then each
    /// step's label and target type): half a million leaked pairs of one shape then share two
    /// strings instead of building a million, and ordering them compares identical strings.
    struct Shape: Hashable {
        var types: [String] = []
        var labels: [Int32] = []
        var extraMembers = 0
    }

    /// One loop through the component, from its canonical start, found breadth-first.
    /// Leaked cycles first, then by signature, then by first member. Signatures repeat (half a
    /// million leaked pairs share one): each distinct one is ranked once, and the cycles are
    /// ordered by integers instead of comparing strings and moving big values in the sort.
    private static func putInReportOrder(_ cycles: inout [Cycle]) {
        guard cycles.count > 1 else { return }
        // Hashing a string normalises it: neighbours (often of one signature) are compared first.
        var rankOfSignature: [String: Int] = [:]
        var previous: String?
        for cycle in cycles where cycle.signature != previous {
            previous = cycle.signature
            if rankOfSignature[cycle.signature] == nil { rankOfSignature[cycle.signature] = 0 }
        }
        for (rank, signature) in rankOfSignature.keys.sorted().enumerated() { rankOfSignature[signature] = rank }
        var previousRank = (signature: "", rank: 0)
        struct Key {
            let leaked: Bool
            let rank: Int
            let first: UInt64
            let position: Int
        }
        var keys = cycles.indices.map { position in
            let signature = cycles[position].signature
            if signature != previousRank.signature { previousRank = (signature, rankOfSignature[signature]!) }
            return Key(
                leaked: cycles[position].leaked, rank: previousRank.rank, first: cycles[position].objects.first ?? 0,
                position: position)
        }
        // Field by field, not as tuples: tuple `<` is generic (slow in debug builds).
        keys.sort { a, b in
            if a.leaked != b.leaked { return a.leaked }
            if a.rank != b.rank { return a.rank < b.rank }
            if a.first != b.first { return a.first < b.first }
            return a.position < b.position
        }
        // Applied in place, one permutation cycle at a time: a buffer's swaps move values, where
        // building a new array (or `Array.swapAt`, which copies) would retain and release every
        // cycle's arrays and strings.
        var source = keys.map(\.position)  // cycles[i] must become the cycle now at source[i]
        cycles.withUnsafeMutableBufferPointer { cycles in
            for start in source.indices where source[start] != start {
                var index = start
                while true {
                    let next = source[index]
                    source[index] = index
                    if next == start { break }
                    cycles.swapAt(index, next)
                    index = next
                }
            }
        }
    }

    private func describe(_ bounds: Range<Int>, leaked: Bool, scratch: inout LoopScratch) -> Cycle {
        // Locals, not `self.…` inside the closures below: a closure reading a stored property
        // of this struct copies the whole struct on every call.
        // (Also outside them: unoptimised, each `graph.offsets[…]` copied the whole graph,
        // retaining every array of it.)
        let objects = snapshot.objects
        let labelNames = graph.labelNames
        let labelRank = self.labelRank
        let members = components.nodes
        let component = components.component
        let offsets = graph.offsets
        let targets = graph.targets
        let labels = graph.labels
        var start = Int(members[bounds.lowerBound])
        for position in bounds.dropFirst() where precedes(Int(members[position]), start) {
            start = Int(members[position])
        }
        let componentID = component[start]
        let sortNeighbours = bounds.count <= 1_000
        let hashed = bounds.count > 64
        scratch.queue.removeAll(keepingCapacity: true)
        scratch.parent.removeAll(keepingCapacity: true)
        scratch.parentLabel.removeAll(keepingCapacity: true)
        if hashed { scratch.position.removeAll(keepingCapacity: true) }
        func visited(_ node: Int32, _ scratch: LoopScratch) -> Bool {
            hashed ? scratch.position[node] != nil : scratch.queue.contains(node)
        }
        scratch.queue.append(Int32(start))
        scratch.parent.append(-1)
        scratch.parentLabel.append(-1)
        if hashed { scratch.position[Int32(start)] = 0 }
        // BFS from start until an edge leads back to start.
        var head = 0
        var closing: (position: Int, label: Int32)?
        search: while head < scratch.queue.count {
            let node = Int(scratch.queue[head])
            scratch.neighbours.removeAll(keepingCapacity: true)
            for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                let target = targets[edge]
                if component[Int(target)] == componentID { scratch.neighbours.append((target, labels[edge])) }
            }
            if sortNeighbours && scratch.neighbours.count > 1 {
                func precedes(_ a: (target: Int32, label: Int32), _ b: (target: Int32, label: Int32)) -> Bool {
                    if a.label != b.label { return labelRank[Int(a.label)] < labelRank[Int(b.label)] }
                    let (x, y) = (Int(a.target), Int(b.target))
                    if objects[x].type != objects[y].type { return objects[x].type < objects[y].type }
                    return objects[x].id < objects[y].id
                }
                if scratch.neighbours.count <= 8 {
                    // An insertion sort in place: nodes have a few neighbours, and `sort(by:)`
                    // retained and released its captures on every call (a tenth of the verdicts).
                    for next in 1..<scratch.neighbours.count {
                        var place = next
                        while place > 0 && precedes(scratch.neighbours[place], scratch.neighbours[place - 1]) {
                            scratch.neighbours.swapAt(place, place - 1)
                            place -= 1
                        }
                    }
                } else {
                    scratch.neighbours.sort(by: precedes)
                }
            }
            for (target, label) in scratch.neighbours {
                if Int(target) == start {
                    closing = (head, label)
                    break search
                }
                if !visited(target, scratch) {
                    if hashed { scratch.position[target] = Int32(scratch.queue.count) }
                    scratch.queue.append(target)
                    scratch.parent.append(Int32(head))
                    scratch.parentLabel.append(label)
                }
            }
            head += 1
        }
        var steps: [Cycle.PathStep] = []
        // The loop's shape: the start's type, then each step's label and target type.
        scratch.shape.types.removeAll(keepingCapacity: true)
        scratch.shape.labels.removeAll(keepingCapacity: true)
        if let closing {
            func id(_ position: Int) -> UInt64 { objects[Int(scratch.queue[position])].id }
            // Walked back from the closing step, then reversed.
            steps.append(
                Cycle.PathStep(
                    from: id(closing.position), to: objects[start].id, label: labelNames[Int(closing.label)]))
            scratch.shape.labels.append(closing.label)
            scratch.shape.types.append(objects[start].type)
            var position = closing.position
            while position != 0 {
                let previous = Int(scratch.parent[position])
                let label = scratch.parentLabel[position]
                steps.append(Cycle.PathStep(from: id(previous), to: id(position), label: labelNames[Int(label)]))
                scratch.shape.labels.append(label)
                scratch.shape.types.append(objects[Int(scratch.queue[position])].type)
                position = previous
            }
            steps.reverse()
            scratch.shape.labels.reverse()
            scratch.shape.types.reverse()
        }
        scratch.shape.types.insert(objects[start].type, at: 0)
        scratch.shape.extraMembers = bounds.count - steps.count
        let (text, signature) = Self.texts(labelNames: labelNames, scratch: &scratch)
        var ids = members[bounds].map { objects[Int($0)].id }
        ids.sort()
        return Cycle(objects: ids, leaked: leaked, signature: signature, path: steps, loopDescription: text)
    }

    /// The text and signature of a loop of `scratch.shape`, built once per distinct shape.
    private static func texts(labelNames: [String], scratch: inout LoopScratch) -> (loop: String, signature: String) {
        if scratch.lastKnown >= 0 && scratch.known[scratch.lastKnown].shape == scratch.shape {
            return (scratch.known[scratch.lastKnown].loop, scratch.known[scratch.lastKnown].signature)
        }
        if let index = scratch.knownIndex[scratch.shape] {
            scratch.lastKnown = index
            return (scratch.known[index].loop, scratch.known[index].signature)
        }
        let shape = scratch.shape
        var loop = shape.types[0]
        for (label, type) in zip(shape.labels, shape.types.dropFirst()) {
            loop += " —\(labelNames[Int(label)])→ " + type
        }
        let signature = shape.extraMembers > 0 ? loop + " (+\(shape.extraMembers))" : loop
        // Bounded: a graph of all-different loops gains nothing from keeping them.
        if scratch.known.count < 4_096 {
            scratch.lastKnown = scratch.known.count
            scratch.knownIndex[shape] = scratch.known.count
            scratch.known.append((shape, loop, signature))
        }
        return (loop, signature)
    }
}
