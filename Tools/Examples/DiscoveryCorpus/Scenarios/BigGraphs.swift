import LeakGraph

/// Big graphs for timing discovery, detection and the dump at exit.
public enum BigGraphs {
    /// Objects kept alive from outside (what makes a shape retained).
    nonisolated(unsafe) static var kept: [Node] = []

    /// Builds `shape` with about `size` objects; false for an unknown shape.
    public static func build(_ shape: String, size: Int) -> Bool {
        switch shape {
        case "ring":
            // One leaked cycle through every node.
            let nodes = (0..<size).map { _ in Node() }
            for index in nodes.indices { nodes[index].next = nodes[(index + 1) % size] }
        case "list":
            // A chain held by a global: alive, no cycle.
            let nodes = (0..<size).map { _ in Node() }
            for index in 1..<size { nodes[index - 1].next = nodes[index] }
            kept = [nodes[0]]
        case "pairs":
            for _ in 0..<size / 2 {
                let a = Node()
                let b = Node()
                a.next = b
                b.next = a
            }
        case "web":
            // Every node holds two others and the whole web is held from outside: one big
            // retained component with many outside holders.
            let nodes = (0..<size).map { _ in Node() }
            var state: UInt64 = 42
            func next() -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33) % size
            }
            for node in nodes { node.children = [nodes[next()], nodes[next()]] }
            kept = nodes
        case "document":
            // 400 holders share one document of `size` values; each document value refers back
            // to a holder, so the holders and the document form one leaked component.
            let holders = (0..<400).map { _ in Node() }
            var document: [String: Any] = [:]
            for index in 0..<size { document["key\(index)"] = index % 100 == 0 ? holders[(index / 100) % 400] : index }
            for holder in holders { holder.values = document }
        case "hub":
            let hub = Node()
            hub.children = (0..<size).map { _ in
                let spoke = Node()
                spoke.next = hub
                return spoke
            }
        default:
            return false
        }
        return true
    }
}
