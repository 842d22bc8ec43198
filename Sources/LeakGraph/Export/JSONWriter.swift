/// Appends JSON text to a byte buffer: the exporters' fast path (string interpolation costs
/// several times more per field, which matters for dumps of hundreds of thousands of objects).
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Where full chunks go when writing in pieces (see ``init(chunkSize:flush:)``).
    private let flush: ((UnsafeRawBufferPointer) -> Void)?
    private let chunkSize: Int

    /// Builds the whole text in ``bytes``.
    init(capacity: Int) {
        flush = nil
        chunkSize = .max
        bytes.reserveCapacity(capacity)
    }

    /// Hands the text to `flush` in pieces of about `chunkSize` bytes (at record boundaries;
    /// call ``finish()`` for the rest), so that a dump of hundreds of megabytes is never held
    /// whole.
    init(chunkSize: Int, flush: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.flush = flush
        self.chunkSize = chunkSize
        bytes.reserveCapacity(chunkSize + 64 * 1024)
    }

    /// Flushes when a chunk is full (between records).
    @inline(__always)
    mutating func flushIfFull() {
        if bytes.count >= chunkSize { finish() }
    }

    /// Hands what is buffered to `flush`.
    mutating func finish() {
        guard let flush, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { flush($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    /// A field's name and colon (`"id":`), after a comma unless it is its record's first.
    mutating func key(_ field: some DumpField, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        var name = field.rawValue
        name.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    // Integers are written by non-generic functions: a generic one (and a closure over a digit
    // buffer) looked up type metadata for every number in a debug build, a third of a big dump.

    /// `value` in decimal.
    mutating func int(_ value: UInt64) {
        // Digits least significant first, then reversed in place.
        let start = bytes.count
        var remaining = value
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: 48 &+ remaining % 10))
            remaining /= 10
        } while remaining > 0
        var low = start
        var high = bytes.count - 1
        while low < high {
            let digit = bytes[low]
            bytes[low] = bytes[high]
            bytes[high] = digit
            low += 1
            high -= 1
        }
    }

    /// `value` in decimal.
    mutating func int(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        int(UInt64(value.magnitude))
    }

    /// `value` in decimal.
    mutating func int(_ value: Int32) { int(Int(value)) }

    /// `value` in decimal.
    mutating func int(_ value: UInt32) { int(UInt64(value)) }

    /// `value` in decimal, or `null`.
    mutating func optionalInt(_ value: Int?) {
        if let value { int(value) } else { raw("null") }
    }

    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// A non-negative time in seconds with millisecond precision (`1795305029.609`).
    mutating func seconds(_ value: Double) {
        guard value.isFinite, value >= 0, value < 1e15 else {
            raw("0")
            return
        }
        let milliseconds = UInt64((value * 1000).rounded())
        int(milliseconds / 1000)
        bytes.append(UInt8(ascii: "."))
        let fraction = milliseconds % 1000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most text (type names, labels, frames) needs no escaping: copy it in one go.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                case 0..<0x20:
                    raw("\\u00")
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    // MARK: Dump records

    /// `[v1,v2,…]`, each element written by `element`.
    mutating func array<Element>(_ values: [Element], _ element: (Element, inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(value, &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `{"f1":v1,"f2":v2,…}` with the fields of `keys` in order, each value written by `value`.
    @inline(__always)
    mutating func record<Value, Field>(
        _ record: Value, keys: DumpRecordKeys<Field>, _ value: (Value, Field, inout JSONWriter) -> Void
    ) {
        bytes.append(UInt8(ascii: "{"))
        keys.text.withUnsafeBufferPointer { text in
            var start = 0
            for index in keys.fields.indices {
                let end = keys.ends[index]
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<end]))
                value(record, keys.fields[index], &self)
                start = end
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `,\n"name":[` then the records (each on a line of its own unless `linePerRecord` is
    /// false) and `]`.
    mutating func section<Value, Field>(
        _ name: DumpSchema.Top, _ records: [Value], keys: DumpRecordKeys<Field>, linePerRecord: Bool = true,
        _ value: (Value, Field, inout JSONWriter) -> Void
    ) {
        section(name, count: records.count, linePerRecord: linePerRecord) { index, out in
            out.record(records[index], keys: keys, value)
        }
    }

    /// ``section(_:_:keys:linePerRecord:_:)`` of the records `0 ..< count`, each given to
    /// `value` by position: for writers that read several arrays at the same position.
    mutating func section<Field>(
        _ name: DumpSchema.Top, count: Int, keys: DumpRecordKeys<Field>,
        _ value: (Int, Field, inout JSONWriter) -> Void
    ) {
        section(name, count: count, linePerRecord: true) { index, out in out.record(index, keys: keys, value) }
    }

    /// The frame both sections share: the key, the brackets, the separators, a flush between
    /// records; `write` writes record `index`.
    private mutating func section(
        _ name: DumpSchema.Top, count: Int, linePerRecord: Bool, _ write: (Int, inout JSONWriter) -> Void
    ) {
        raw(",\n")
        key(name, first: true)
        bytes.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if linePerRecord { bytes.append(UInt8(ascii: "\n")) }
            write(index, &self)
            flushIfFull()
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// A dump record's fields in writing order, each with its key text (`"name":`, after a comma
/// but the first), encoded once per export rather than once per record.
struct DumpRecordKeys<Field: DumpField> {
    let fields: [Field]
    /// Every key's text back to back (one buffer: nested arrays cost a retain per field).
    let text: [UInt8]
    /// Where each field's key text ends in `text`.
    let ends: [Int]

    init() {
        fields = Field.allCases
        var text: [UInt8] = []
        var ends: [Int] = []
        for (index, field) in fields.enumerated() {
            text += ((index == 0 ? "" : ",") + "\"" + field.rawValue + "\":").utf8
            ends.append(text.count)
        }
        self.text = text
        self.ends = ends
    }
}
