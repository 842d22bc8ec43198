import Foundation
import LeakGraph
import LeakGraphRx

/// Scaling cases (issue 13): each shape at N and 10 × N, one operation = the whole shape, so a
/// linear path shows about 10× the time per operation at 10 × N and a quadratic one about 100×.
/// Tracking on, stacks off (stack capture is a per-object constant that would only blur the
/// ratio).
func scalingCases() -> [BenchCase] {
    func scaling(_ name: String, _ group: String, _ variant: String, sizes: [Int], _ run: @escaping (Int) -> Void)
        -> [BenchCase]
    {
        sizes.map { size in
            let label = size >= 1_000 ? "\(size / 1_000)k" : "\(size)"
            return BenchCase(
                name: "scale-\(name)-\(label)", group: "scaling: \(group) (N = \(label))", variant: variant,
                unit: "shape", iterations: 3, quickIterations: 1
            ) { context in
                configure(tracking: true, stacks: .off)
                let n = context.size(size)
                var sample = measure(context.iterations) {
                    for _ in 0..<context.iterations { run(n) }
                }
                sample.metrics["ns/element"] = sample.seconds / Double(context.iterations) / Double(n) * 1e9
                return sample
            }
        }
    }
    let counter = Counter()
    return
        scaling(
            "concat", "Observable.concat over N sources", "build, subscribe, run to completion", sizes: [1_000, 10_000]
        ) {
            n in
            let sources = (0..<n).map { Observable.just($0) }
            _ = Observable.concat(sources).subscribe(onNext: { counter.value &+= $0 })
        }
        + scaling(
            "merge", "Observable.merge over N sources", "build, subscribe, run to completion", sizes: [1_000, 10_000]
        ) {
            n in
            let sources = (0..<n).map { Observable.just($0) }
            _ = Observable.merge(sources).subscribe(onNext: { counter.value &+= $0 })
        }
        + scaling(
            "combinelatest", "Observable.combineLatest over N sources", "build, subscribe, run to completion",
            sizes: [1_000, 10_000]
        ) {
            n in
            let sources = (0..<n).map { Observable.just($0) }
            _ = Observable.combineLatest(sources) { $0.count }.subscribe(onNext: { counter.value &+= $0 })
        }
        + scaling(
            "subject-observers", "a subject with N observers", "subscribe N, one event, dispose N",
            sizes: [1_000, 10_000]
        ) {
            n in
            let subject = PublishSubject<Int>()
            let subscriptions = (0..<n).map { _ in subject.subscribe(onNext: { counter.value &+= $0 }) }
            subject.onNext(1)
            for subscription in subscriptions { subscription.dispose() }
        }
        + scaling(
            "disposebag", "a DisposeBag of N subscriptions", "N subscriptions into a bag, bag dropped",
            sizes: [1_000, 10_000]
        ) {
            n in
            let subject = PublishSubject<Int>()
            var bag: DisposeBag? = DisposeBag()
            for _ in 0..<n { subject.subscribe(onNext: { counter.value &+= $0 }).disposed(by: bag!) }
            bag = nil
        }
        + scaling(
            "array-holder", "an object holding an array of N tracked objects", "full snapshot (discovery)",
            sizes: [1_000, 10_000, 100_000]
        ) {
            n in
            let holder = ArrayHolder()
            holder.children = (0..<n).map { _ in TrackedNode() }
            blackHole(LeakGraph.snapshot().objects.count)
            holder.children = []
        }
        + scaling(
            "retained-web", "a retained web of N objects", "full snapshot + analysis", sizes: [1_000, 10_000, 100_000]
        ) {
            n in
            let nodes = (0..<n).map { _ in TrackedNode() }
            var state: UInt64 = 7
            for node in nodes {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                node.next = nodes[Int(state >> 33) % n]
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                node.other = nodes[Int(state >> 33) % n]
            }
            blackHole(LeakDetector.analyze(LeakGraph.snapshot()).cycles.count)
            for node in nodes {
                node.next = nil
                node.other = nil
            }
        }
        + scaling(
            "dump-leaked-pairs", "N leaked pairs written as a dump (the dump at exit's path)",
            "snapshot, verdicts, confirmation, JSON and dot files", sizes: [1_000, 10_000, 100_000]
        ) {
            n in
            // Leaked: each pair holds itself; only unretained pointers stay here, to break the
            // cycles once the dump is written.
            var pairs: [Unmanaged<TrackedNode>] = []
            pairs.reserveCapacity(n)
            for _ in 0..<n {
                let first = TrackedNode()
                let second = TrackedNode()
                first.next = second
                second.next = first
                pairs.append(Unmanaged.passUnretained(first))
            }
            let directory = FileManager.default.temporaryDirectory.path + "/leakgraph-bench-\(getpid())"
            let files = try? LeakGraph.writeDump(to: directory, name: "scale", contents: .cycles).files
            precondition(files != nil, "the dump could not be written to \(directory)")
            try? FileManager.default.removeItem(atPath: directory)
            for pair in pairs { pair.takeUnretainedValue().next = nil }
        }
}

/// A tracked object whose only references are the elements of an array.
final class ArrayHolder: TrackedObject {
    var children: [TrackedNode] = []
}
