import LeakGraph

/// Allocates a tracked object under a call path spelled by the low `depth` bits of `path`
/// (two distinct call sites per level), so that each path gives a distinct allocation stack.
@inline(never)
func allocate(path: Int, depth: Int, into objects: inout [TrackedLeaf]) {
    if depth == 0 {
        objects.append(TrackedLeaf())
    } else if path & 1 == 0 {
        allocateLeft(path: path >> 1, depth: depth - 1, into: &objects)
    } else {
        allocateRight(path: path >> 1, depth: depth - 1, into: &objects)
    }
    blackHole(depth)
}

@inline(never)
func allocateLeft(path: Int, depth: Int, into objects: inout [TrackedLeaf]) {
    blackHole(path)
    allocate(path: path, depth: depth, into: &objects)
}

@inline(never)
func allocateRight(path: Int, depth: Int, into objects: inout [TrackedLeaf]) {
    allocate(path: path, depth: depth, into: &objects)
    blackHole("right \(path)")
}

func memoryCases() -> [BenchCase] {
    [
        BenchCase(
            name: "memory-object", group: "registry memory", variant: "bytes per tracked object (stacks off, no label)",
            unit: "object", iterations: 100_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            let before = LeakGraph.registryByteCount
            var objects: [TrackedLeaf] = []
            objects.reserveCapacity(context.iterations)
            var sample = measure(context.iterations) {
                for _ in 0..<context.iterations { objects.append(TrackedLeaf()) }
            }
            let bytes = LeakGraph.registryByteCount - before
            sample.metrics["bytes/object"] = Double(bytes) / Double(context.iterations)
            blackHole(objects)
            return sample
        },
        BenchCase(
            name: "memory-edge", group: "registry memory", variant: "bytes per declared edge",
            unit: "edge", iterations: 100_000, quickIterations: 1_000
        ) { context in
            configure(tracking: true, stacks: .off)
            let objects = (0...context.iterations).map { _ in TrackedLeaf() }
            let before = LeakGraph.registryByteCount
            var sample = measure(context.iterations) {
                for i in 0..<context.iterations { objects[i].addTrackedEdge(to: objects[i + 1], label: .benchNext) }
            }
            let bytes = LeakGraph.registryByteCount - before
            sample.metrics["bytes/edge"] = Double(bytes) / Double(context.iterations)
            blackHole(objects)
            return sample
        },
        BenchCase(
            name: "memory-stack", group: "registry memory", variant: "bytes per unique stack (all:32)",
            unit: "object", iterations: 16_384, quickIterations: 256
        ) { context in
            // Reference: the same number of objects without stacks, so that object slots cancel.
            configure(tracking: true, stacks: .off)
            let n = context.iterations
            let depth = max(1, Int.bitWidth - (n - 1).leadingZeroBitCount)
            var plain: [TrackedLeaf] = []
            plain.reserveCapacity(n)
            let before = LeakGraph.registryByteCount
            for path in 0..<n { allocate(path: path, depth: depth, into: &plain) }
            let objectBytes = LeakGraph.registryByteCount - before
            configure(tracking: true, stacks: .all(depth: 32))
            var withStacks: [TrackedLeaf] = []
            withStacks.reserveCapacity(n)
            let stacksBefore = LeakGraph.uniqueStackCount
            let bytesBefore = LeakGraph.registryByteCount
            var sample = measure(n) {
                for path in 0..<n { allocate(path: path, depth: depth, into: &withStacks) }
            }
            let stacks = LeakGraph.uniqueStackCount - stacksBefore
            let bytes = LeakGraph.registryByteCount - bytesBefore
            sample.metrics["unique stacks"] = Double(stacks)
            sample.metrics["bytes/stack"] = Double(bytes - objectBytes) / Double(max(stacks, 1))
            blackHole(plain)
            blackHole(withStacks)
            return sample
        },
    ]
}
