import Testing

@testable import LeakGraph

@Suite("NodeIndex")
struct NodeIndexTests {
    @Test("dense ids are found by a direct table, and ids between or beyond them are absent")
    func denseIDs() {
        let index = NodeIndex(ids: [3, 4, 6, 7, 10])
        #expect([3, 4, 6, 7, 10].map { index.node(of: $0) } == [0, 1, 2, 3, 4])
        #expect([0, 1, 5, 8, 11, 1_000_000].map { index.node(of: $0) } == [-1, -1, -1, -1, -1, -1])
    }

    @Test("scattered ids, object 0 among them, are found by hashing")
    func scatteredIDs() {
        let ids: [UInt64] = (0..<500).map { UInt64($0) * 9_999_991 }
        let index = NodeIndex(ids: ids)
        for (position, id) in ids.enumerated() { #expect(index.node(of: id) == position) }
        #expect(index.node(of: 1) == -1)
        #expect(index.node(of: 9_999_990) == -1)
        #expect(index.node(of: UInt64(Int64.max)) == -1)
    }

    @Test("discovered nodes after the tracked ids are found, with either kind of table")
    func discoveredNodes() {
        let base = ObjectInfo.discoveredNodeIDBase
        for tracked in [[1, 2, 3] as [UInt64], [5, 50_000, 900_000]] {
            let ids = tracked + [base, base + 7, base + 8]
            let index = NodeIndex(ids: ids)
            for (position, id) in ids.enumerated() { #expect(index.node(of: id) == position) }
            #expect(index.node(of: base + 1) == -1)
            #expect(index.node(of: 4) == -1)
        }
    }

    @Test("an empty index finds nothing")
    func empty() {
        let index = NodeIndex(ids: [])
        #expect(index.node(of: 0) == -1)
        #expect(index.node(of: 1) == -1)
    }

    @Test("ids in no particular order, discovered nodes among them, are all found by hashing")
    func unorderedIDs() {
        let base = ObjectInfo.discoveredNodeIDBase
        let ids: [UInt64] = [9, 3, base + 2, 7, 0, base, 12]
        let index = NodeIndex(ids: ids)
        for (position, id) in ids.enumerated() { #expect(index.node(of: id) == position) }
        for absent: UInt64 in [1, 8, 13, base + 1, .max] { #expect(index.node(of: absent) == -1) }
    }
}
