import Foundation
import Testing
import XCTest

/// Run on its own, in a child process, by ``XCTestLibraryLeakTests``: an XCTest case that leaks
/// nothing of its own (its own run in the whole suite checks nothing).
final class XCTestLibraryLeakFixture: XCTestCase {
    func testNothingLeaks() {
        XCTAssertEqual([1, 2, 3].map { $0 * 2 }, [2, 4, 6])
    }

    func testNothingLeaksEither() {
        XCTAssertTrue(true)
    }
}

@Suite("XCTest's own leaks in a real run")
struct XCTestLibraryLeakTests {
    @Test("an XCTest run's exit dump holds XCTest's own cycles, marked as library leaks: the report is clean")
    func xctestRunIsClean() throws {
        let directory = makeTemporaryDirectory("xctest-run")
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_DUMP_DIR"] = directory
        environment["LEAKGRAPH_STACKS"] = "off"  // not needed here; keeps the child quick
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let run = try runExecutable(
            bundle, ["LeakGraphCLITests.XCTestLibraryLeakFixture"], environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run.errors)")
        let dump = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".json") })
        let text = try String(contentsOfFile: directory + "/" + dump, encoding: .utf8)
        #expect(text.contains(#""libraryLeak":"XCTest: "#))
        let report = try runBinary(["report", directory + "/" + dump])
        #expect(report.status == 0, "\(report.output)")
        #expect(report.output.contains("No leaks."))
        #expect(report.output.contains("in XCTest"))
        #expect(report.output.contains("XCTestLibraryLeakFixture —testRun→ XCTestCaseRun"))
    }
}
