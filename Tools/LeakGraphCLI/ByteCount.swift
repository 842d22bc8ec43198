import ArgumentParser

/// A size given on the command line: `500000`, `64k`, `512m`, `2g` (binary units).
package struct ByteCount: ExpressibleByArgument, Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes.
    package var bytes: UInt64

    /// Creates a size.
    package init(bytes: UInt64) {
        self.bytes = bytes
    }

    /// Parses `500000`, `64k`, `512m`, `2g` or `1t`; nil for anything else.
    package init?(argument: String) {
        let text = argument.lowercased()
        let units: [(suffix: String, shift: UInt64)] = [("t", 40), ("g", 30), ("m", 20), ("k", 10), ("b", 0)]
        var digits = Substring(text)
        var shift: UInt64 = 0
        for unit in units where text.hasSuffix(unit.suffix) {
            digits = text.dropLast(unit.suffix.count)
            shift = unit.shift
            break
        }
        guard let value = UInt64(digits), value <= UInt64.max >> shift else { return nil }
        bytes = value << shift
    }

    /// `1 GiB`: what help shows as the default.
    package var defaultValueDescription: String { Self.describe(bytes) }

    /// `1 GiB`.
    package var description: String { Self.describe(bytes) }

    /// `1.5 GiB`, `12 MiB`, `1 GiB`, `900 bytes` (binary units, whole numbers without a decimal).
    package static func describe(_ bytes: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        guard value >= 1024 else { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let whole = value.rounded() == value
        return String(format: value < 10 && !whole ? "%.1f" : "%.0f", value) + " " + units[unit]
    }
}
