import LeakGraphRx
import XCTest

/// Fails with both sequences and where they first differ, one element per line.
private func assertSequencesEqual<Element>(
    _ lhs: [Element], _ rhs: [Element], by equal: (Element, Element) -> Bool, file: StaticString, line: UInt
) {
    if lhs.count == rhs.count && zip(lhs, rhs).allSatisfy(equal) { return }
    let common = min(lhs.count, rhs.count)
    let firstDifference = (0..<common).first { !equal(lhs[$0], rhs[$0]) } ?? common
    func listing(_ values: [Element]) -> String {
        values.enumerated().map { index, value in
            "  \(index == firstDifference ? "→" : " ") \(String(reflecting: value))"
        }.joined(separator: "\n")
    }
    XCTFail(
        "sequences differ at index \(firstDifference) (\(lhs.count) vs \(rhs.count) elements)\nactual:\n"
            + "\(listing(lhs))\nexpected:\n\(listing(rhs))", file: file, line: line)
}

/// Asserts two lists of events are equal (errors equal when their descriptions are).
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [Event<Element>], _ rhs: [Event<Element>], file: StaticString = #filePath, line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: { $0 == $1 }, file: file, line: line)
}

/// Asserts two lists of single events are equal (errors equal when their descriptions are).
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [SingleEvent<Element>], _ rhs: [SingleEvent<Element>], file: StaticString = #filePath, line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: equals, file: file, line: line)
}

/// Asserts two lists of maybe events are equal (errors equal when their descriptions are).
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [MaybeEvent<Element>], _ rhs: [MaybeEvent<Element>], file: StaticString = #filePath, line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: { $0 == $1 }, file: file, line: line)
}

/// Asserts two lists of completable events are equal (errors equal when their descriptions are).
public func XCTAssertEqual(
    _ lhs: [CompletableEvent], _ rhs: [CompletableEvent], file: StaticString = #filePath, line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: { $0 == $1 }, file: file, line: line)
}

/// Asserts two lists of recorded events are equal: same times, equal events.
///
/// ```swift
/// XCTAssertEqual(res.events, [.next(210, 2), .completed(300)])
/// ```
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [Recorded<Event<Element>>], _ rhs: [Recorded<Event<Element>>], file: StaticString = #filePath,
    line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: { $0 == $1 }, file: file, line: line)
}

/// Asserts two lists of recorded events of optional elements are equal.
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [Recorded<Event<Element?>>], _ rhs: [Recorded<Event<Element?>>], file: StaticString = #filePath,
    line: UInt = #line
) {
    assertSequencesEqual(lhs, rhs, by: { $0 == $1 }, file: file, line: line)
}

/// Asserts a recorded stream holds exactly `elements` as `.next` events, and no stop event.
///
/// ```swift
/// XCTAssertRecordedElements(res.events, [1, 2, 3])
/// ```
public func XCTAssertRecordedElements<Element: Equatable>(
    _ stream: [Recorded<Event<Element>>], _ elements: [Element], file: StaticString = #filePath, line: UInt = #line
) {
    if let stop = stream.first(where: { $0.value.isStopEvent }) {
        return XCTFail("A non-next stop event has been emitted: \(stop)", file: file, line: line)
    }
    assertSequencesEqual(stream.compactMap { $0.value.element }, elements, by: { $0 == $1 }, file: file, line: line)
}
