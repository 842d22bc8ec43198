import CLeakGraphSupport
import Foundation
import XCTest

/// XCTest, not Swift Testing: XCTest runs its tests on the process's main thread, whose stack
/// bounds captures find from the program's entry (Swift Testing runs tests on other threads).
final class MainThreadStackBoundsTests: XCTestCase {
    func testMainThreadBoundsComeFromTheEntryInsideTheStackMappingAndItsWalksAgree() throws {
        #if canImport(Glibc)
            guard lg_learned_frame_rules() == 1 else { throw XCTSkip("no learned frame rules on this platform") }
            var limit = rlimit()
            // rlim_t.max: RLIM_INFINITY, which Swift does not import.
            guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
                throw XCTSkip("no stack limit: the bounds come from pthread_getattr_np")
            }
            XCTAssertTrue(Thread.isMainThread)
            var low: UInt = 0
            var high: UInt = 0
            var systemLow: UInt = 0
            var systemHigh: UInt = 0
            let way = lg_stack_bounds_for_tests(&low, &high, &systemLow, &systemHigh)
            XCTAssertEqual(way, 1, "the main thread's bounds were read by pthread_getattr_np (/proc/self/maps)")
            let here = withUnsafeMutablePointer(to: &low) { UInt(bitPattern: $0) }
            XCTAssertTrue(low < here && here < high)
            // The top, against the stack mapping as the kernel lists it; the bottom half the limit
            // below (at most 64 MB), inside the room the limit gives the stack to grow.
            // Read to its end: /proc files say they are empty, and a read by size gives nothing.
            let file = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps"))
            let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            file.closeFile()
            let line = try XCTUnwrap(maps.split(separator: "\n").first { $0.hasSuffix("[stack]") })
            let range = line.split(separator: " ")[0].split(separator: "-")
            let mappingEnd = try XCTUnwrap(UInt(range[1], radix: 16))
            // Never past the mapping (a walk climbs up to the top); above it by no more than the
            // arguments and environment can take (a quarter of the limit).
            XCTAssertTrue(high <= mappingEnd && mappingEnd - high <= UInt(limit.rlim_cur) / 4, "\(high) \(mappingEnd)")
            XCTAssertEqual(high - low, min(UInt(limit.rlim_cur) / 2, 64 << 20))
            XCTAssertTrue(
                systemLow <= low && high <= systemHigh, "\(low)..<\(high) outside \(systemLow)..<\(systemHigh)")
            var disagreements: [String] = []
            for depth in 0..<24 {
                for _ in 0..<2 { disagreements += Recursion(depth: depth).run() }
            }
            XCTAssertEqual(disagreements.count, 0, "\(disagreements.prefix(3))")
        #else
            throw XCTSkip("the main thread's bounds come from the program's entry with glibc only")
        #endif
    }
}
