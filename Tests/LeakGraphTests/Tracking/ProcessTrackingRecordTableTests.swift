import CLeakGraphSupport
import Testing

/// The whole-process record table (`Sources/CLeakGraphSupport/process_tracking.c`): where a
/// record's probe starts decides how far every insert and removal probes.
@Suite("Whole-process tracking's record table")
struct ProcessTrackingRecordTableTests {
    @Test(
        "objects allocated in a run of one size class get home slots spread over a shard",
        .enabled(if: lg_process_tracking_available() != 0, "whole-process tracking is Linux-only"),
        arguments: [16, 32, 48, 64, 128, 256, 4096]
    )
    func runsOfOneSizeSpread(stride: Int) {
        // Malloc hands out a run of one size class at one stride. Home slots from the hash's low
        // bits gave addresses 64 bytes apart one slot in four (256 of 1,024), 4 KiB apart four
        // slots; now 480–770 for every stride here (a random hash would give about 540).
        let capacity = 1024
        let base: UInt = 0x7F12_3456_0000
        let homes = Set((0..<capacity * 3 / 4).map { lg_process_home_slot(base + UInt($0 * stride), capacity) })
        #expect(homes.allSatisfy { $0 < capacity })
        #expect(homes.count > capacity * 3 / 8, "\(homes.count) home slots for \(capacity * 3 / 4) objects")
    }
}
