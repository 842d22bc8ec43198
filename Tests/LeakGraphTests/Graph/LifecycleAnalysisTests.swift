import LeakGraph
import LeakGraphTestSupport
import Testing

@Suite("Lifecycle analysis")
struct LifecycleAnalysisTests {
    private func object(
        _ id: UInt64, state: ObjectState = .unspecified, strong: Int? = 1, other: Int? = 0
    ) -> ObjectInfo {
        var info = ObjectInfo(id: id, type: "T\(id)", strongRetainCount: strong, state: state)
        info.weakAndUnownedReferenceCount = other
        return info
    }

    private func edge(_ from: UInt64, _ to: UInt64, _ label: String = "e", kind: EdgeKind = .strong) -> EdgeInfo {
        EdgeInfo(from: from, to: to, kind: kind, label: label, origin: .declared)
    }

    private func kinds(_ snapshot: GraphSnapshot, leaked: Set<UInt64> = [], disposal: Set<String> = ["dispose"])
        -> (neverFinished: [UInt64], canNeverFinish: [UInt64])
    {
        LifecycleAnalysis.activeObjects(in: snapshot, leaked: leaked, disposalLabels: disposal)
    }

    /// 1 (a bag, held by a local) —dispose→ 2 (disposer) —dispose→ 3 (active sink); 4 (its
    /// source) —e→ 3; 2 —dispose→ 4; `source` is object 4, `extra` more edges.
    private func disposalChain(source: ObjectInfo, extra: [EdgeInfo] = []) -> GraphSnapshot {
        GraphSnapshot(
            objects: [object(1, strong: 1), object(2), object(3, state: .active, strong: 2), source],
            edges: [edge(1, 2, "dispose"), edge(2, 3, "dispose"), edge(4, 3), edge(2, 4, "dispose")] + extra)
    }

    @Test("a subscription reached only through disposal references can never finish")
    func reachedOnlyThroughDisposal() {
        let result = kinds(disposalChain(source: object(4)))
        #expect(result.canNeverFinish == [3])
        #expect(result.neverFinished.isEmpty)
    }

    @Test("a source held from outside can still send events: never finished, not can-never-finish")
    func sourceHeldFromOutside() {
        // The source has a holder the graph does not show (retain count 2, one known edge).
        let result = kinds(disposalChain(source: object(4, strong: 2)))
        #expect(result.neverFinished == [3])
        #expect(result.canNeverFinish.isEmpty)
    }

    @Test("a weak reference the graph does not show makes its target reachable from outside")
    func unseenWeakReference() {
        #expect(kinds(disposalChain(source: object(4, other: 1))).neverFinished == [3])
        // The same weak reference shown as an edge from a disposal-only path explains it.
        let shown = disposalChain(source: object(4, other: 1), extra: [edge(2, 4, "dispose", kind: .weak)])
        #expect(kinds(shown).canNeverFinish == [3])
    }

    @Test("a label qualified by an owner type is cut only from owners of that type")
    func ownerQualifiedLabels() {
        // 1 (held) —subscription→ 2 —e→ 3 (active): cut when 1 is a SinkDisposer, not when it is
        // a subscriber of another library that requests elements through `subscription`.
        func snapshot(ownerType: String) -> GraphSnapshot {
            var owner = object(1, strong: 1)
            owner.type = ownerType
            return GraphSnapshot(
                objects: [owner, object(2), object(3, state: .active)],
                edges: [edge(1, 2, "subscription"), edge(2, 3)])
        }
        let qualified: Set<String> = ["SinkDisposer.subscription"]
        #expect(kinds(snapshot(ownerType: "SinkDisposer"), disposal: qualified).canNeverFinish == [3])
        #expect(kinds(snapshot(ownerType: "TrackedSubscriber<Int>"), disposal: qualified).neverFinished == [3])
        #expect(kinds(snapshot(ownerType: "LeakGraphRx.SinkDisposer"), disposal: qualified).canNeverFinish == [3])
    }

    @Test("unknown counts count as held from outside; no disposal labels follow every reference")
    func unknownIsConservative() {
        let unknown = GraphSnapshot(
            objects: [object(1, strong: 1), object(2, state: .active, strong: 1), object(3, other: nil)],
            edges: [edge(1, 2, "dispose"), edge(3, 2), edge(1, 3, "dispose")])
        #expect(kinds(unknown).neverFinished == [2])
        let known = GraphSnapshot(
            objects: [object(1, strong: 1), object(2, state: .active, strong: 1), object(3)],
            edges: [edge(1, 2, "dispose"), edge(3, 2), edge(1, 3, "dispose")])
        #expect(kinds(known).canNeverFinish == [2])
        #expect(kinds(known, disposal: []).neverFinished == [2])
    }

    @Test("leaked objects are in neither list; finished ones are not active")
    func leakedAndFinishedLeftOut() {
        let snapshot = GraphSnapshot(
            objects: [object(1, state: .active), object(2, state: .active), object(3, state: .completed, strong: 2)],
            edges: [edge(1, 2), edge(2, 1)])
        let result = kinds(snapshot, leaked: [1, 2])
        #expect(result.neverFinished.isEmpty && result.canNeverFinish.isEmpty)
        #expect(LeakDetector.analyze(snapshot).leakedObjectIDs == [1, 2])
    }

    @Test("nothing active: nothing to say, whatever the graph")
    func nothingActive() {
        let snapshot = GraphSnapshot(objects: (1...5).map { object($0) }, edges: [edge(1, 2), edge(2, 3)])
        let result = kinds(snapshot)
        #expect(result.neverFinished.isEmpty && result.canNeverFinish.isEmpty)
    }

    @Test(
        "seeded random graphs agree with a brute-force oracle: search backwards from each active object for an outside holder"
    )
    func randomGraphsAgreeWithOracle() {
        var random = SeededGenerator(seed: 0x11FE_C7C1)
        let labels = ["dispose", "e", "f"]
        for _ in 0..<80 {
            let count = Int.random(in: 2...40, using: &random)
            var edges: [EdgeInfo] = []
            for from in 1...count {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let to = Int.random(in: 1...count, using: &random)
                    let kind: EdgeKind = Int.random(in: 0..<4, using: &random) == 0 ? .weak : .strong
                    edges.append(edge(UInt64(from), UInt64(to), labels.randomElement(using: &random)!, kind: kind))
                }
            }
            var strongIn = [UInt64: Int]()
            var weakIn = [UInt64: Int]()
            for edge in edges {
                if edge.kind == .strong { strongIn[edge.to, default: 0] += 1 } else { weakIn[edge.to, default: 0] += 1 }
            }
            let states: [ObjectState] = [.unspecified, .active, .active, .completed]
            let objects = (1...count).map { raw -> ObjectInfo in
                let id = UInt64(raw)
                // Mostly explained counts, sometimes one holder or weak reference more, sometimes unknown.
                let extraStrong = Int.random(in: 0..<6, using: &random) == 0 ? 1 : 0
                let extraWeak = Int.random(in: 0..<8, using: &random) == 0 ? 1 : 0
                let unknown = Int.random(in: 0..<20, using: &random) == 0
                return object(
                    id, state: states.randomElement(using: &random)!,
                    strong: unknown ? nil : (strongIn[id] ?? 0) + extraStrong, other: (weakIn[id] ?? 0) + extraWeak)
            }
            let snapshot = GraphSnapshot(objects: objects, edges: edges)
            let leaked = LeakDetector.analyze(snapshot).leakedObjectIDs
            let result = kinds(snapshot, leaked: leaked)
            // Oracle: from each active object, walk followed edges backwards; it can finish when
            // some object on the way has a holder or a weak reference the graph does not explain.
            func outside(_ object: ObjectInfo) -> Bool {
                guard let strong = object.strongRetainCount, let other = object.weakAndUnownedReferenceCount else {
                    return true
                }
                return strong > strongIn[object.id] ?? 0 || other > weakIn[object.id] ?? 0
            }
            var expectedNever: [UInt64] = []
            var expectedCannot: [UInt64] = []
            for object in objects where object.state == .active && !leaked.contains(object.id) {
                var seen: Set<UInt64> = [object.id]
                var stack = [object.id]
                var found = false
                while let current = stack.popLast(), !found {
                    if outside(objects[Int(current) - 1]) {
                        found = true
                        break
                    }
                    for edge in edges where edge.to == current && edge.label != "dispose" && !seen.contains(edge.from) {
                        seen.insert(edge.from)
                        stack.append(edge.from)
                    }
                }
                if found { expectedNever.append(object.id) } else { expectedCannot.append(object.id) }
            }
            #expect(result.neverFinished == expectedNever)
            #expect(result.canNeverFinish == expectedCannot)
        }
    }
}
