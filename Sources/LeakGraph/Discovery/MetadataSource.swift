/// Where a generic closure context keeps the metadata of one of its generic parameters: one
/// record of the metadata sources its capture descriptor lists after the capture types.
///
/// The compiler writes each record as two mangled strings: the parameter (`x`, `q_`, `qd__`)
/// and its source: `B<n>` (the n-th generic binding word stored after the context's header),
/// `R<n>` (the class of the reference held by capture n), `M<n>` (capture n is itself a
/// metadata pointer) or `G<i><source>_` (the i-th generic argument of the metadata another
/// source gives). `S` (the `Self` of a witness method) and anything newer are not read.
indirect enum MetadataSource: Equatable, Sendable {
    case binding(Int)
    case referenceCapture(Int)
    case metadataCapture(Int)
    case genericArgument(Int, of: MetadataSource)

    /// Parses a source string (`B0`, `G0R1_`); nil for forms this reader does not know.
    init?(mangled text: [UInt8]) {
        var index = 0
        guard let source = Self.parse(text, at: &index), index == text.count else { return nil }
        self = source
    }

    private static func parse(_ text: [UInt8], at index: inout Int) -> MetadataSource? {
        guard index < text.count else { return nil }
        let letter = text[index]
        index += 1
        switch letter {
        case UInt8(ascii: "B"): return number(text, at: &index).map(MetadataSource.binding)
        case UInt8(ascii: "R"): return number(text, at: &index).map(MetadataSource.referenceCapture)
        case UInt8(ascii: "M"): return number(text, at: &index).map(MetadataSource.metadataCapture)
        case UInt8(ascii: "G"):
            guard let argument = number(text, at: &index), let base = parse(text, at: &index),
                index < text.count, text[index] == UInt8(ascii: "_")
            else { return nil }
            index += 1
            return .genericArgument(argument, of: base)
        default: return nil
        }
    }

    private static func number(_ text: [UInt8], at index: inout Int) -> Int? {
        let (value, digits) = decimal(text, at: &index)
        return digits > 0 ? value : nil
    }

    /// The captures this source reads (their offsets must be known before it can be used).
    var captureIndex: Int? {
        switch self {
        case .binding: return nil
        case .referenceCapture(let index), .metadataCapture(let index): return index
        case .genericArgument(_, let base): return base.captureIndex
        }
    }
}

/// A generic parameter's position in a generic signature: `x` is (0, 0), `q_` (0, 1), `q0_`
/// (0, 2), `qd__` (1, 0), `qd_0_` (1, 1).
struct GenericParameter: Hashable, Comparable, Sendable {
    let depth: Int
    let index: Int

    /// Parses a mangled generic parameter; nil for anything else (a dependent member type, a
    /// parameter pack).
    init?(mangled text: [UInt8]) {
        if text == [UInt8(ascii: "x")] {
            (depth, index) = (0, 0)
            return
        }
        guard text.first == UInt8(ascii: "q") else { return nil }
        var position = 1
        if position < text.count, text[position] == UInt8(ascii: "z") {
            guard text.count == 2 else { return nil }
            (depth, index) = (0, 0)
            return
        }
        if position < text.count, text[position] == UInt8(ascii: "d") {
            position += 1
            guard let depthIndex = Self.index(text, at: &position), let index = Self.index(text, at: &position),
                position == text.count
            else { return nil }
            (self.depth, self.index) = (depthIndex + 1, index)
            return
        }
        guard let index = Self.index(text, at: &position), position == text.count else { return nil }
        (depth, self.index) = (0, index + 1)
    }

    init(depth: Int, index: Int) {
        (self.depth, self.index) = (depth, index)
    }

    /// `_` is 0, `<n>_` is n + 1.
    private static func index(_ text: [UInt8], at position: inout Int) -> Int? {
        let (value, digits) = decimal(text, at: &position)
        guard position < text.count, text[position] == UInt8(ascii: "_") else { return nil }
        position += 1
        return digits == 0 ? 0 : value + 1
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.depth, lhs.index) < (rhs.depth, rhs.index)
    }
}

/// The decimal number at `index` (at most six digits), and how many digits it had (0: none).
private func decimal(_ text: [UInt8], at index: inout Int) -> (value: Int, digits: Int) {
    var value = 0
    var digits = 0
    while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]), digits < 6 {
        value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
        index += 1
        digits += 1
    }
    return (value, digits)
}
