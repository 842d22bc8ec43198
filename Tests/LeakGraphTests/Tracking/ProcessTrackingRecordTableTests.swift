import CLeakGraphSupport
import Testing

/// The whole-process record table (`Sources/CLeakGraphSupport/process_tracking.c`): where a
/// record's probe starts decides how far every insert and removal probes.
@Suite("Whole-process tracking's record table")
struct ProcessTrackingRecordTableTests {
    /// Whether this build has the table (compiled out on other systems and by the trait).
    static var hasTable: Bool {
        var shard: Int32 = 0
        return lg_process_home_slot(0x1000, 1024, &shard) != -1  // SIZE_MAX, as Swift imports `size_t`
    }

    @Test(
        "objects allocated in a run of one size class get home slots spread over their shard",
        .enabled(if: hasTable, "whole-process tracking is compiled out of this build"),
        arguments: [16, 32, 48, 64, 128, 256, 4096]
    )
    func runsOfOneSizeSpread(stride: Int) throws {
        // Malloc hands out a run of one size class at one stride. The addresses are taken in one
        // shard until it is three quarters full, when the table grows it. Home slots from the
        // hash's low bits gave 768 such addresses 310 homes of 1,024 at a 16-byte stride, 153 at
        // 64 bytes, 4 at 4 KiB; now 500–760 at every stride here (a random hash gives about 540).
        // A home overlapping the shard's own bits would give 16.
        let capacity = 1024
        let wanted = capacity * 3 / 4
        let base: UInt = 0x7F12_3456_0000
        var homes = Set<Int>()
        var inShard = 0
        var index = 0
        while inShard < wanted && index < wanted * 64 * 8 {
            var shard: Int32 = -1
            let home = lg_process_home_slot(base + UInt(index * stride), capacity, &shard)
            index += 1
            try #require(home < capacity && (0..<64).contains(shard))
            guard shard == 0 else { continue }
            homes.insert(home)
            inShard += 1
        }
        #expect(inShard == wanted)
        #expect(homes.count > capacity * 3 / 8, "\(homes.count) home slots for \(inShard) objects of one shard")
        var shard: Int32 = 0
        #expect(lg_process_home_slot(base, 1000, &shard) == -1, "not a shard's capacity")
        #expect(lg_process_home_slot(base, 128, &shard) == -1, "below a shard's first capacity")
        #expect((0..<256).contains(lg_process_home_slot(base, 256, &shard)), "a shard's first capacity")
    }
}
