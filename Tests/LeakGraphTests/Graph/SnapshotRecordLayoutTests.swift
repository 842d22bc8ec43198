import Foundation
import Testing

@testable import LeakGraph

/// A snapshot keeps one ``ObjectInfo`` per live object and one ``EdgeInfo`` per edge (a million
/// each in a big dump at exit): both are stored compactly, and every value a property takes,
/// optional or not, must read back and code exactly as it was written.
@Suite("Snapshot records' layout")
struct SnapshotRecordLayoutTests {
    @Test("an object's record is 104 bytes and an edge's 80")
    func strides() {
        #expect(MemoryLayout<ObjectInfo>.stride == 104)
        #expect(MemoryLayout<EdgeInfo>.stride == 80)
    }

    @Test("an object's optional numbers read back as written, nil and extremes included, and code as before")
    func objectValues() throws {
        for value in [nil, 0, 1, -1, Int.min, Int.max] as [Int?] {
            var object = ObjectInfo(id: 7, type: "Sink<Int>", label: "sink", strongRetainCount: value, stack: value)
            object.weakAndUnownedReferenceCount = value
            object.isRecordedProcessWide = value == nil
            #expect(object.strongRetainCount == value)
            #expect(object.stack == value)
            #expect(object.weakAndUnownedReferenceCount == value)
            #expect(object.isRecordedProcessWide == (value == nil))
            let decoded = try JSONDecoder().decode(ObjectInfo.self, from: JSONEncoder().encode(object))
            #expect(decoded.strongRetainCount == value && decoded.stack == value && decoded.label == "sink")
        }
        // Setting one optional back to nil leaves the others.
        var object = ObjectInfo(id: 1, type: "T", strongRetainCount: 3, stack: 4)
        object.strongRetainCount = nil
        #expect(object.strongRetainCount == nil && object.stack == 4)
        #expect(object != ObjectInfo(id: 1, type: "T", strongRetainCount: 3, stack: 4))
        #expect(object == ObjectInfo(id: 1, type: "T", stack: 4))
        // The keys a dump or a stored snapshot has: nothing more, nothing renamed.
        let keys = try JSONSerialization.jsonObject(with: JSONEncoder().encode(object)) as? [String: Any]
        #expect(Set(keys?.keys ?? [:].keys) == ["id", "type", "stack", "time", "state", "scope"])
    }

    @Test("an edge's site and closure address read back as written, nil and extremes included, and code as before")
    func edgeValues() throws {
        for (site, address) in [(nil, nil), (0, 0), (-1, UInt.max), (Int.max, 1)] as [(Int?, UInt?)] {
            let edge = EdgeInfo(from: 1, to: 2, label: "capture", site: site, closureAddress: address)
            #expect(edge.site == site && edge.closureAddress == address)
            let decoded = try JSONDecoder().decode(EdgeInfo.self, from: JSONEncoder().encode(edge))
            #expect(decoded == edge)
        }
        var edge = EdgeInfo(from: 1, to: 2, label: "x", site: 5, closureAddress: 9)
        edge.site = nil
        #expect(edge.site == nil && edge.closureAddress == 9)
        #expect(edge == EdgeInfo(from: 1, to: 2, label: "x", closureAddress: 9))
        let keys = try JSONSerialization.jsonObject(with: JSONEncoder().encode(edge)) as? [String: Any]
        #expect(Set(keys?.keys ?? [:].keys) == ["from", "to", "kind", "label", "origin", "count", "closureAddress"])
    }
}
