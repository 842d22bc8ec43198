import LeakGraph

/// A tracked object with no stored references.
final class TrackedLeaf: TrackedObject {}

/// A plain class of the same size as `TrackedLeaf` (one stored word).
final class PlainLeaf {
    var slot: Int32 = -1
}

/// A tracked node with a strong reference, for snapshot and registry-graph cases.
final class TrackedNode: TrackedObject {
    var next: TrackedNode?
    var other: TrackedNode?
}

/// A tracked node whose reference is a `@StrongRef`: every assignment reports its edge.
final class WrappedNode: TrackedObject {
    @StrongRef var peer: TrackedLeaf?
}

extension EdgeLabel {
    static let benchNext = EdgeLabel("next")
    static let benchOther = EdgeLabel("other")
}

/// Where the allocation cases store each new object (the store releases, so frees, the previous one).
/// A global the optimiser must keep: with `blackHole(PlainLeaf())` alone it proved the object
/// unobservable and removed the allocation (1.7 ns, 21 instructions "per allocation").
nonisolated(unsafe) var allocSlot: AnyObject?

/// How deep the measured loops run (see `atDepth`).
let benchDepth = 40

func allocationCases() -> [BenchCase] {
    func tracked(_ name: String, _ variant: String, tracking: Bool, stacks: StackCaptureMode) -> BenchCase {
        BenchCase(
            name: name, group: "TrackedObject alloc + free", variant: variant, unit: "object",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: tracking, stacks: stacks)
            return atDepth(benchDepth) {
                measure(context.iterations) {
                    for _ in 0..<context.iterations { allocSlot = TrackedLeaf() }
                    allocSlot = nil
                }
            }
        }
    }
    return [
        BenchCase(
            name: "alloc-plain", group: "TrackedObject alloc + free", variant: "plain final class", unit: "object",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true)
            return atDepth(benchDepth) {
                measure(context.iterations) {
                    for _ in 0..<context.iterations { allocSlot = PlainLeaf() }
                    allocSlot = nil
                }
            }
        },
        tracked("alloc-tracked-off", "tracking off (LeakGraph.isEnabled = false)", tracking: false, stacks: .off),
        tracked("alloc-tracked-nostacks", "tracking on, stacks off", tracking: true, stacks: .off),
        tracked("alloc-tracked-stacks32", "tracking on, stacks all:32", tracking: true, stacks: .all(depth: 32)),
        tracked(
            "alloc-tracked-sampled100", "tracking on, stacks sampled:100:32", tracking: true,
            stacks: .sampled(every: 100, depth: 32)),
    ]
}

func edgeCases() -> [BenchCase] {
    [
        BenchCase(
            name: "edge-add-remove", group: "edge add + remove",
            variant: "addTrackedEdge/removeTrackedEdge (EdgeLabel)",
            unit: "add+remove", iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true)
            let a = TrackedLeaf(), b = TrackedLeaf()
            return measure(context.iterations) {
                for _ in 0..<context.iterations {
                    a.addTrackedEdge(to: b, label: .benchNext)
                    a.removeTrackedEdge(to: b, label: .benchNext)
                }
            }
        },
        BenchCase(
            name: "strongref-assign", group: "edge add + remove",
            variant: "@StrongRef assignment moving its edge between two targets", unit: "assignment",
            iterations: 1_000_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true)
            let owner = WrappedNode(), first = TrackedLeaf(), second = TrackedLeaf()
            return measure(context.iterations) {
                for index in 0..<context.iterations { owner.peer = index & 1 == 0 ? first : second }
            }
        },
        BenchCase(
            name: "strongref-new-owner", group: "edge add + remove",
            variant: "a new owner (default stacks) whose @StrongRef is assigned once, then dropped",
            unit: "owner", iterations: 300_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true)
            let target = TrackedLeaf()
            return measure(context.iterations) {
                for _ in 0..<context.iterations {
                    let owner = WrappedNode()
                    owner.peer = target
                    allocSlot = owner
                }
            }
        },
        BenchCase(
            name: "edge-add-remove-public", group: "edge add + remove",
            variant: "LeakGraph.addEdge/removeEdge (String label, site recorded)",
            unit: "add+remove", iterations: 300_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true)
            let a = TrackedLeaf(), b = TrackedLeaf()
            return atDepth(benchDepth) {
                measure(context.iterations) {
                    for _ in 0..<context.iterations {
                        LeakGraph.addEdge(from: a, to: b, label: "next")
                        LeakGraph.removeEdge(from: a, to: b, label: "next")
                    }
                }
            }
        },
    ]
}

/// Builds `count` live tracked nodes (chained by stored `next` references, each declaring 2
/// edges in groups of 4: `next` to the following member, `other` two ahead).
func makeRegistryGraph(_ count: Int) -> [TrackedNode] {
    var nodes: [TrackedNode] = []
    nodes.reserveCapacity(count)
    for _ in 0..<count { nodes.append(TrackedNode()) }
    for i in 0..<count {
        let base = i & ~3
        guard base + 3 < count else { break }
        let node = nodes[i]
        node.next = nodes[base + (i + 1) % 4]
        node.other = nodes[base + (i + 2) % 4]
        node.addTrackedEdge(to: node.next!, label: .benchNext)
        node.addTrackedEdge(to: node.other!, label: .benchOther)
    }
    return nodes
}

/// Breaks the cycles of a registry graph so its nodes die.
func release(_ nodes: [TrackedNode]) {
    for node in nodes {
        node.next = nil
        node.other = nil
    }
}

/// A hand-built snapshot of `count` objects with 2 strong edges each, in leaked 4-cycles
/// (each member's retain count is exactly its 2 in-edges).
func syntheticSnapshot(_ count: Int) -> GraphSnapshot {
    let types = ["ViewModel", "PublishSubject<Int>", "MapSink<Int, AnonymousObserver<Int>>", "DisposeBag"]
    var objects: [ObjectInfo] = []
    objects.reserveCapacity(count)
    var edges: [EdgeInfo] = []
    edges.reserveCapacity(2 * count)
    for i in 0..<count {
        objects.append(
            ObjectInfo(
                id: UInt64(i + 1), type: types[i & 3], label: i % 10 == 0 ? "item \(i)" : nil, strongRetainCount: 2,
                time: 1_700_000_000 + Double(i) / 1000))
    }
    for i in 0..<count {
        let base = i & ~3
        let a = base + (i + 1) % 4, b = base + (i + 2) % 4
        edges.append(EdgeInfo(from: UInt64(i + 1), to: UInt64(min(a, count - 1) + 1), label: "next"))
        edges.append(EdgeInfo(from: UInt64(i + 1), to: UInt64(min(b, count - 1) + 1), label: "other"))
    }
    return GraphSnapshot(objects: objects, edges: edges)
}

func graphCases() -> [BenchCase] {
    /// One owner declaring `size` references and dropping them again: linear when adding and
    /// removing an edge is O(1) whatever the owner's out-degree (10× the references ≈ 10× the
    /// time), quadratic when each scans the owner's list.
    func hubEdges(_ label: String, _ size: Int) -> BenchCase {
        BenchCase(
            name: "hub-edges-\(label)", group: "one owner with N references (scaling)",
            variant: "addEdge × N then removeEdge × N", unit: "owner",
            iterations: 3, quickIterations: 1
        ) { context in
            configure(tracking: true, stacks: .off)
            let n = context.size(size)
            let hub = TrackedNode()
            let targets = (0..<n).map { _ in TrackedNode() }
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations {
                    for target in targets { hub.addTrackedEdge(to: target, label: .benchNext) }
                    for target in targets { hub.removeTrackedEdge(to: target, label: .benchNext) }
                }
            }
            blackHole(targets.count)
            sample.metrics["ns/reference"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            return sample
        }
    }
    func detect(_ label: String, _ size: Int) -> BenchCase {
        BenchCase(
            name: "detect-\(label)", group: "leak detection, \(label) objects × 2 edges",
            variant: "LeakDetector.analyze (hand-built snapshot)", unit: "analysis",
            iterations: 3, quickIterations: 1
        ) { context in
            let n = context.size(size)
            let snapshot = syntheticSnapshot(n)
            var leaked = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations {
                    // Counted without `leakedCycles`, which copies them: the analysis is measured.
                    leaked = LeakDetector.analyze(snapshot).cycles.reduce(0) { $0 + ($1.leaked ? 1 : 0) }
                }
            }
            blackHole(leaked)
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            sample.metrics["leaked cycles"] = Double(leaked)
            return sample
        }
    }
    /// Dominators (issue 16) on the detector's synthetic graph: the target is the detector's time.
    func dominators(_ label: String, _ size: Int) -> BenchCase {
        BenchCase(
            name: "dominators-\(label)", group: "leak detection, \(label) objects × 2 edges",
            variant: "Dominators (after analyze, which is not timed)", unit: "analysis",
            iterations: 3, quickIterations: 1
        ) { context in
            let n = context.size(size)
            let snapshot = syntheticSnapshot(n)
            let report = LeakDetector.analyze(snapshot)
            var kept = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations {
                    kept = Dominators(snapshot, report: report, listsKeptObjects: false).keepsAlive(
                        of: snapshot.objects[0].id)
                }
            }
            blackHole(kept)
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            return sample
        }
    }
    /// The lifecycle verdicts (issue 16) on the detector's synthetic graph with every fourth
    /// object reporting itself active: one more linear pass over objects and edges.
    func lifecycle(_ label: String, _ size: Int) -> BenchCase {
        BenchCase(
            name: "lifecycle-\(label)", group: "leak detection, \(label) objects × 2 edges",
            variant: "LifecycleAnalysis, a quarter of the objects active", unit: "analysis",
            iterations: 3, quickIterations: 1
        ) { context in
            let n = context.size(size)
            var snapshot = syntheticSnapshot(n)
            for index in stride(from: 0, to: snapshot.objects.count, by: 4) { snapshot.objects[index].state = .active }
            for index in snapshot.objects.indices { snapshot.objects[index].weakAndUnownedReferenceCount = 0 }
            let leaked = LeakDetector.analyze(snapshot).leakedObjectIDs
            var found = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations {
                    found =
                        LifecycleAnalysis.activeObjects(in: snapshot, leaked: leaked, disposalLabels: ["next"])
                        .canNeverFinish.count
                }
            }
            blackHole(found)
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            return sample
        }
    }
    func registryDetect(_ label: String, _ size: Int) -> BenchCase {
        BenchCase(
            name: "detect-registry-\(label)", group: "leak detection, \(label) objects × 2 edges",
            variant: "snapshot(.declaredOnly) + analyze (real registry)", unit: "analysis",
            iterations: 3, quickIterations: 1
        ) { context in
            configure(tracking: true, stacks: .off)
            let n = context.size(size)
            let nodes = makeRegistryGraph(n)
            var cycles = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations {
                    let report = LeakDetector.analyze(LeakGraph.snapshot(options: .declaredOnly))
                    cycles = report.leakedCycles.count + report.retainedCycles.count
                }
            }
            blackHole(cycles)
            release(nodes)
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            return sample
        }
    }
    func snapshot(_ name: String, _ variant: String, _ options: SnapshotOptions) -> BenchCase {
        BenchCase(
            name: name, group: "snapshot of 100k objects", variant: variant, unit: "snapshot",
            iterations: 3, quickIterations: 1
        ) { context in
            configure(tracking: true)
            let n = context.size(100_000)
            let nodes = makeRegistryGraph(n)
            var count = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations { count = LeakGraph.snapshot(options: options).objects.count }
            }
            blackHole(count)
            release(nodes)
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            return sample
        }
    }
    func export(_ name: String, _ variant: String, _ render: @escaping (GraphSnapshot, LeakReport) -> String)
        -> BenchCase
    {
        BenchCase(
            name: name, group: "export of 100k objects", variant: variant, unit: "export",
            iterations: 3, quickIterations: 1
        ) { context in
            let n = context.size(100_000)
            let snapshot = syntheticSnapshot(n)
            let report = LeakDetector.analyze(snapshot)
            var bytes = 0
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations { bytes = render(snapshot, report).utf8.count }
            }
            sample.metrics["ns/object"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
            sample.metrics["output bytes"] = Double(bytes)
            return sample
        }
    }
    return [
        snapshot("snapshot-100k-declared", "LeakGraph.snapshot(options: .declaredOnly)", .declaredOnly),
        snapshot("snapshot-100k", "LeakGraph.snapshot() (reflection + closure scan)", .default),
        hubEdges("1k", 1_000), hubEdges("10k", 10_000), hubEdges("100k", 100_000),
        detect("10k", 10_000), detect("100k", 100_000), detect("1m", 1_000_000),
        dominators("100k", 100_000), dominators("1m", 1_000_000), lifecycle("1m", 1_000_000),
        registryDetect("100k", 100_000), registryDetect("1m", 1_000_000),
        export("export-dot-100k", "DotExporter.render (scope .everything, 100k nodes)") { snapshot, report in
            DotExporter.render(snapshot, report: report, options: .init(scope: .everything, maximumNodes: 100_000))
        },
        export("export-json-100k", "JSONExporter.render") { snapshot, report in
            JSONExporter.render(snapshot, report: report)
        },
        BenchCase(
            name: "detect-json-200k-leaked", group: "detection + JSON dump, 200k leaked objects",
            variant: "analyze + JSONExporter.render", unit: "analysis+dump", iterations: 3, quickIterations: 1
        ) { context in
            let n = context.size(200_000)
            let snapshot = syntheticSnapshot(n)
            var bytes = 0
            return measure(context.iterations) {
                for _ in 0..<context.iterations {
                    bytes = JSONExporter.render(snapshot, report: LeakDetector.analyze(snapshot)).utf8.count
                }
                blackHole(bytes)
            }
        },
    ]
}

/// Code addresses to symbolicate: a different window of this binary's text on every run, so
/// that the symbolicator's cache never answers.
nonisolated(unsafe) var symbolWindow = 0

@_cdecl("leakgraph_bench_anchor")
func symbolAnchor() {}

func symbolicationCases() -> [BenchCase] {
    [
        BenchCase(
            name: "symbolicate-frame", group: "symbolication", variant: "Symbolicator.frames, distinct addresses",
            unit: "unique frame", iterations: 2_000, quickIterations: 20
        ) { context in
            let anchor: @convention(c) () -> Void = symbolAnchor
            let base = UInt(bitPattern: unsafeBitCast(anchor, to: Int.self))
            let n = context.iterations
            let addresses = (0..<n).map { base + UInt(symbolWindow + $0) * 8 + 1 }
            symbolWindow += n
            var known = 0
            var sample = measure(n) {
                known = Symbolicator.frames(for: addresses).filter { $0.function != nil }.count
            }
            sample.metrics["resolved"] = Double(known)
            return sample
        }
    ]
}
