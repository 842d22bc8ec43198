import Testing

@testable import LeakGraph

/// The registry's slot tables: records kept in place across growth, mutated where they are, the
/// free lists' last-in first-out order.
@Suite("Slot table")
struct SlotTableTests {
    @Test("records keep their values and positions while the storage grows many times")
    func growthKeepsRecords() {
        var table = SlotTable<EdgeSlot>()
        #expect(table.isEmpty)
        for index in 0..<10_000 {
            table.append(EdgeSlot(from: Int32(index), to: Int32(index * 3), label: 7, site: -1, kind: UInt8(index & 3)))
        }
        #expect(table.count == 10_000)
        #expect(table.capacity >= 10_000)
        #expect(table.indices == 0..<10_000)
        #expect(table.indices.allSatisfy { table[$0].from == Int32($0) && table[$0].to == Int32($0 * 3) })
        #expect(table.indices.allSatisfy { table[$0].kind == UInt8($0 & 3) })
        #expect(table[9_999].from == 9_999)
    }

    @Test("a field written through the subscript changes that record alone")
    func inPlaceMutation() {
        var table = SlotTable<ObjectSlot>()
        for id in 0..<40 { table.append(ObjectSlot(id: UInt64(id))) }
        table[17].labelIndex = 5
        table[17].firstOut = 3
        let buffer = table.mutableBuffer
        buffer[18].state = 2
        #expect(table[17].labelIndex == 5 && table[17].firstOut == 3 && table[17].id == 17)
        #expect(table[18].state == 2)
        #expect(table.indices.filter { table[$0].labelIndex != -1 } == [17])
        #expect(table.indices.filter { table[$0].state != 0 } == [18])
    }

    @Test("a free list gives back the last position freed first")
    func freeListOrder() {
        var free = SlotTable<Int32>()
        for slot: Int32 in [4, 9, 2] { free.append(slot) }
        #expect(free.removeLast() == 2)
        free.append(11)
        #expect(free.removeLast() == 11)
        #expect(free.removeLast() == 9)
        #expect(free.removeLast() == 4)
        #expect(free.isEmpty)
        // Emptied, it grows again from where it is.
        free.append(1)
        #expect(free.count == 1 && free[0] == 1)
    }
}
