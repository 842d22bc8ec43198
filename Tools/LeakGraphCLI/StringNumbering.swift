/// Numbers distinct strings in the order they first appear, for tallies over a million objects:
/// the last few strings seen are compared first (names come in runs, and equal names compare in a
/// few instructions), so most objects skip hashing their type name or signature.
struct StringNumbering {
    private var index: [String: Int] = [:]
    /// The distinct strings, by number.
    private(set) var strings: [String] = []
    private var recent: [(string: String, number: Int)] = []

    /// The number of `string`, given it the first time.
    mutating func number(of string: String) -> Int {
        for entry in recent where entry.string == string { return entry.number }
        let number: Int
        if let known = index[string] {
            number = known
        } else {
            number = strings.count
            index[string] = number
            strings.append(string)
        }
        if recent.count == 4 { recent.removeFirst() }
        recent.append((string, number))
        return number
    }
}
