import CLeakGraphSupport
import Testing

@testable import LeakGraph

/// Objects with no stored property: their records are made by hand below.
private final class StaleRecordProbe {}
private final class OtherStaleRecordProbe {}

/// Records of objects freed by a path the interposed deallocation does not see (found running
/// GRDB's suite, whose exit crashed inside `swift_tryRetain` on such a record's reused memory).
@Suite(
    "Whole-process tracking's stale records",
    .enabled(if: LeakGraph.isTrackingAllObjects, "needs LEAKGRAPH_TRACK=all (CI runs the suite so)"))
struct StaleRecordTests {
    @Test("a record whose memory no longer starts with its metadata is never held; memory allocated again replaces it")
    func staleRecordIsSkippedThenReplaced() throws {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        let address = UInt(bitPattern: memory)
        let probe = UInt(bitPattern: unsafeBitCast(StaleRecordProbe.self, to: UnsafeRawPointer.self))
        let other = UInt(bitPattern: unsafeBitCast(OtherStaleRecordProbe.self, to: UnsafeRawPointer.self))
        // Memory reused by something else: another type's header, a count word that sends
        // `swift_tryRetain` to a side table that is not there.
        memory.storeBytes(of: other, as: UInt.self)
        memory.storeBytes(of: 0x8000_0000_1234_5678 as UInt, toByteOffset: 8, as: UInt.self)
        let staleBefore = lg_process_stale_record_count()
        lg_process_record_for_tests(address, probe)
        defer { lg_process_forget_for_tests(address) }
        let snapshot = LeakGraph.snapshot()
        #expect(!snapshot.objects.contains { $0.address == address })
        // Nor asked whether it is dying by a leak check's count of live objects (the count word
        // would send the runtime to the same missing side table).
        var ids: UnsafeMutablePointer<UInt64>?
        _ = lg_process_live_ids(0, 0, &ids)
        lg_process_free_ids(ids)
        #expect(lg_process_stale_record_count() > staleBefore)
        // The allocator hands the memory out again: the new object's record takes the stale one's
        // place (an immortal count word, so that any snapshot meanwhile holds it harmlessly).
        memory.storeBytes(of: probe, as: UInt.self)
        memory.storeBytes(of: UInt.max, toByteOffset: 8, as: UInt.self)
        let replacedBefore = lg_process_stale_record_count()
        lg_process_record_for_tests(address, probe)
        #expect(lg_process_stale_record_count() == replacedBefore + 1)
        lg_process_forget_for_tests(address)
        #expect(lg_process_is_recorded(address) == 0, "the address was recorded twice")
        #expect(lg_process_unrecordable_count() == 0)
    }
}
