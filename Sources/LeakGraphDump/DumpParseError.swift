/// Why ``DumpParser`` stopped: broken JSON text, or a well-formed value the caller cannot use.
struct DumpParseError: Error, Sendable {
    /// Broken JSON (`syntax`) is reported as such; a wrong type or out-of-range number (`value`)
    /// is reported with the field it was read for, which only the caller knows.
    enum Kind: Sendable {
        case syntax
        case value
    }

    var kind: Kind
    /// Zero-based byte offset in the input where the problem starts.
    var offset: Int
    /// What is wrong, in a few words: `expected ',' or ']'`.
    var problem: String

    /// The one-line text for a syntax error: `not valid JSON at byte 1234: expected ',' or ']'`.
    var syntaxDescription: String { "not valid JSON at byte \(offset): \(problem)" }
}
