import Foundation
import LeakGraph
import Testing

@Suite("expectDeallocation", .isolated)
struct ExpectDeallocationTests {
    @Test("an object that outlives its deadline is reported with the cycle that holds it")
    func reportsTheCycle() async throws {
        let reports = Locked<[LeakGraph.DeallocationFailure]>([])
        let parent = makeLeakedPair()
        LeakGraph.expectDeallocation(of: parent, within: 0.05) { failure in reports.withLock { $0.append(failure) } }
        for _ in 0..<200 where reports.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        let report = try #require(reports.withLock { $0.first })
        #expect(report.typeName == "Parent")
        #expect(report.explanation.contains("Child —parent→ Parent —child→ Child"))
        #expect(report.description.contains("was expected to be deallocated within 0.05 s"))
    }

    @Test("an object freed in time is not reported")
    func freedInTime() async throws {
        let reports = Locked<Int>(0)
        inScope {
            let parent = Parent()
            LeakGraph.expectDeallocation(of: parent, within: 0.05) { _ in reports.withLock { $0 += 1 } }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(reports.withLock { $0 } == 0)
    }
}
