import CLeakGraphSupport
import XCTest

/// XCTest, not Swift Testing: XCTest runs its tests on the process's main thread, whose stack
/// bounds captures find from the program's entry (Swift Testing runs tests on other threads).
final class MainThreadStackBoundsTests: XCTestCase {
    func testMainThreadBoundsComeFromTheEntryInsideTheSystemsAndItsWalksAgree() throws {
        guard lg_learned_frame_rules() == 1 else { throw XCTSkip("no learned frame rules on this platform") }
        XCTAssertTrue(Thread.isMainThread)
        var low: UInt = 0
        var high: UInt = 0
        var systemLow: UInt = 0
        var systemHigh: UInt = 0
        let way = lg_stack_bounds_for_tests(&low, &high, &systemLow, &systemHigh)
        XCTAssertEqual(way, 1, "the main thread's bounds were read by pthread_getattr_np (/proc/self/maps)")
        let here = withUnsafeMutablePointer(to: &low) { UInt(bitPattern: $0) }
        XCTAssertTrue(low < here && here < high)
        // Only where the stack can be: inside what pthread_getattr_np says, and most of it.
        XCTAssertTrue(systemLow <= low && high <= systemHigh, "\(low)..<\(high) outside \(systemLow)..<\(systemHigh)")
        XCTAssertGreaterThanOrEqual(high - low, (systemHigh - systemLow) / 2)
        var disagreements: [String] = []
        for depth in 0..<24 {
            for _ in 0..<2 { disagreements += Recursion(depth: depth).run() }
        }
        XCTAssertEqual(disagreements.count, 0, "\(disagreements.prefix(3))")
    }
}
