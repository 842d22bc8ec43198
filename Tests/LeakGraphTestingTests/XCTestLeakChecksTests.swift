import Foundation
import LeakGraph
import LeakGraphTesting
import XCTest

final class XCTestLeakChecksTests: XCTestCase {
    func testAssertNoLeaksPassesForCleanCode() {
        assertNoLeaks { noLeak() }
    }

    func testLeakCheckingTestCaseReportsAPlantedLeak() {
        let probe = PlantedLeakCase(name: "leaks") { ($0 as! PlantedLeakCase).leaks() }
        probe.invokeTest()
        XCTAssertEqual(probe.recorded.count, 1)
        XCTAssertTrue(
            probe.recorded.first?.contains("Screen —presenter→ Presenter") ?? false, probe.recorded.first ?? "")
        // Reported at the user's line that made the leak, not inside LeakGraph.
        // Absolute, whatever the working directory: XCTest records the failure in that file.
        let fixtures = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().appendingPathComponent(
            "Fixtures.swift"
        ).path
        XCTAssertEqual(probe.locations.first??.file, fixtures)
        XCTAssertEqual(probe.locations.first??.line, 16)
    }

    func testLeakCheckingTestCaseIsQuietForCleanTests() {
        let probe = PlantedLeakCase(name: "clean") { ($0 as! PlantedLeakCase).clean() }
        probe.invokeTest()
        XCTAssertEqual(probe.recorded, [])
    }
}

/// A test case run by hand, whose leak failures are captured instead of recorded.
final class PlantedLeakCase: LeakCheckingTestCase {
    var recorded: [String] = []
    var locations: [SourceLine?] = []
    override var leakCheckOptions: LeakCheckOptions { LeakCheckOptions(gracePeriod: .milliseconds(20)) }
    override func recordLeakFailure(_ message: String, at location: SourceLine?) {
        recorded.append(message)
        locations.append(location)
    }
    func leaks() { plantLeak() }
    func clean() { noLeak() }
}
