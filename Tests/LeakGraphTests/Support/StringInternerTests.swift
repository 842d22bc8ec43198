import Testing

@testable import LeakGraph

@Suite("StringInterner")
struct StringInternerTests {
    @Test("strings are numbered in order of first appearance, and keep their number past the recent ones")
    func numbersInOrder() {
        var interner = StringInterner()
        let words = ["a", "b", "a", "c", "d", "e", "f", "g", "a", "b", String(repeating: "long ", count: 10)]
        let numbers = words.map { interner.number(of: $0) }
        #expect(numbers == [0, 1, 0, 2, 3, 4, 5, 6, 0, 1, 7])
        #expect(interner.strings == ["a", "b", "c", "d", "e", "f", "g", String(repeating: "long ", count: 10)])
    }
}
