/// Numbers strings in the order they first appear (0, 1, 2…).
///
/// A few strings make up nearly every lookup (an owner's edge labels, a program's types), and
/// the strings of one snapshot share their storage: the last few seen are compared first (a
/// shared string compares by pointer) and only the others are hashed.
package struct StringInterner {
    /// The strings, by number.
    package private(set) var strings: [String] = []
    private var numbers: [String: Int32] = [:]
    private var recent: [(string: String, number: Int32)] = []

    package init() {}

    /// The number of `string`, given it the first time.
    @inline(__always)
    package mutating func number(of string: String) -> Int32 {
        if let hit = recent.firstIndex(where: { $0.string == string }) { return recent[hit].number }
        return numberHashing(string)
    }

    private mutating func numberHashing(_ string: String) -> Int32 {
        let number: Int32
        if let known = numbers[string] {
            number = known
        } else {
            number = Int32(strings.count)
            numbers[string] = number
            strings.append(string)
        }
        if recent.count == 4 { recent.removeFirst() }
        recent.append((string, number))
        return number
    }
}
