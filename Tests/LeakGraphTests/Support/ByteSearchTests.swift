import Testing

@testable import LeakGraph

/// Substring tests on UTF-8 bytes, as paths, symbols and the symbolizer's answers are matched.
struct ByteSearchTests {
    @Test("a byte search finds what is there, at either end, and nothing else")
    func byteSearch() {
        #expect("/src/.build/checkouts/x.swift".containsBytes("/checkouts/"))
        #expect("closure #1 in  x".containsBytes(" in  "))
        #expect(!"closure #1 in x".containsBytes(" in  "))
        #expect("abc".containsBytes("abc"))
        #expect("abc".containsBytes(""))
        #expect(!"ab".containsBytes("abc"))
        #expect(!"".containsBytes("a"))
        #expect("naïve café".containsBytes("café"))
    }

    @Test("a substring is searched within its own bounds")
    func substringBounds() {
        let text = "abc/checkouts/def"
        let head = text.prefix(5)
        #expect(!head.containsBytes("/checkouts/"))
        #expect(head.containsBytes("abc/c"))
        #expect(text.dropFirst(3).containsBytes("/checkouts/"))
    }
}
