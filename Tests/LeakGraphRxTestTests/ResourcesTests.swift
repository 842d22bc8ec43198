import LeakGraphRx
import XCTest

/// XCTest on purpose: `swift test` runs XCTest cases one at a time and apart from the Swift
/// Testing tests, so the process-wide count moves only with this test's objects.
final class ResourcesTests: XCTestCase {
    func testTotalCountsLiveObjectsAndReturnsOnceTheyAreReleased() {
        let subject = PublishSubject<Int>()
        let before = Resources.total
        var subscription: Disposable? = subject.map { $0 + 1 }.subscribe(onNext: { _ in })
        XCTAssertGreaterThan(Resources.total, before)
        subscription?.dispose()
        subscription = nil
        XCTAssertEqual(Resources.total, before)
    }
}
