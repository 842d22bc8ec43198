import CLeakGraphSupport

extension Substring {
    /// Whether `text` occurs in this substring, its UTF-8 bytes compared (`memmem`).
    ///
    /// For paths, symbols and the symbolizer's answers, which are matched byte for byte. Imported
    /// Foundation's `contains` bridges both strings to `NSString` and searches UTF-16: called for
    /// each frame of a dump, that was a tenth of a test process's symbolication.
    ///
    /// ```swift
    /// "/src/.build/checkouts/x.swift"[...].containsBytes("/checkouts/")  // true
    /// ```
    func containsBytes(_ text: String) -> Bool {
        var haystack = self
        var needle = text
        return haystack.withUTF8 { haystack in
            needle.withUTF8 { needle in
                lg_contains_bytes(haystack.baseAddress, haystack.count, needle.baseAddress, needle.count) != 0
            }
        }
    }
}

extension String {
    /// Whether `text` occurs in this string, its UTF-8 bytes compared (see
    /// ``Swift/Substring/containsBytes(_:)``).
    func containsBytes(_ text: String) -> Bool { self[...].containsBytes(text) }
}
