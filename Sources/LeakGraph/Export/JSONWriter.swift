/// Appends JSON text to a byte buffer: the exporters' fast path (string interpolation costs
/// several times more per field, which matters for dumps of hundreds of thousands of objects).
struct JSONWriter {
    // The text goes into memory of its own through a pointer, not into a `[UInt8]`: an array's
    // append checks its buffer's uniqueness and capacity byte by byte (a fifth of a big dump's
    // JSON time in a release build, far more in a debug one, where each append is a call into
    // unspecialised generic code). A writer is used in place (`inout`), never copied.
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Frees the memory when the writer goes.
    private let owner: Allocation
    /// Where full chunks go when writing in pieces (see ``init(chunkSize:flush:)``).
    private let flush: ((UnsafeRawBufferPointer) -> Void)?
    private let chunkSize: Int
    /// Set by ``omitField()`` while a record's field is written.
    private var omitting = false

    /// Leaves out the field being written, key and all (a sparse field: most records have
    /// nothing there). Not for a record's first field (the next key starts with a comma).
    mutating func omitField() {
        omitting = true
    }

    /// The text written so far (a copy).
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Builds the whole text in memory (read it from ``bytes``).
    init(capacity: Int) {
        flush = nil
        chunkSize = .max
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        owner = Allocation(base)
    }

    /// Hands the text to `flush` in pieces of about `chunkSize` bytes (at record boundaries;
    /// call ``finish()`` for the rest), so that a dump of hundreds of megabytes is never held
    /// whole.
    init(chunkSize: Int, flush: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.flush = flush
        self.chunkSize = chunkSize
        capacity = chunkSize + 64 * 1024
        base = .allocate(capacity: capacity)
        owner = Allocation(base)
    }

    /// Flushes when a chunk is full (between records).
    @inline(__always)
    mutating func flushIfFull() {
        if count >= chunkSize { finish() }
    }

    /// Hands what is buffered to `flush`.
    mutating func finish() {
        guard let flush, count > 0 else { return }
        flush(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(toHold: count + extra) }
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
        owner.pointer = grown
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// A field's name and colon (`"id":`), after a comma unless it is its record's first.
    mutating func key(_ field: some DumpField, first: Bool = false) {
        if !first { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        var name = field.rawValue
        name.withUTF8 { put($0) }
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { put($0) }
    }

    // Integers are written by non-generic functions: a generic one (and a closure over a digit
    // buffer) looked up type metadata for every number in a debug build, a third of a big dump.

    /// `value` in decimal.
    mutating func int(_ value: UInt64) {
        // Counted first, then written from the last digit back: no reversing.
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits &+= 1
        }
        reserve(digits)
        var position = count &+ digits
        rest = value
        repeat {
            position &-= 1
            base[position] = UInt8(truncatingIfNeeded: 48 &+ rest % 10)
            rest /= 10
        } while rest > 0
        count &+= digits
    }

    /// `value` in decimal.
    mutating func int(_ value: Int) {
        if value < 0 { put(UInt8(ascii: "-")) }
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
        put(UInt8(ascii: "."))
        let fraction = milliseconds % 1000
        put(UInt8(ascii: "0") + UInt8(fraction / 100))
        put(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        put(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    mutating func string(_ text: String) {
        put(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most text (type names, labels, frames) needs no escaping: copy it in one go.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                put(utf8)
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
                    put(hex[Int(byte >> 4)])
                    put(hex[Int(byte & 0xF)])
                default: put(byte)
                }
            }
        }
        put(UInt8(ascii: "\""))
    }

    mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    // MARK: Dump records

    /// `[v1,v2,…]`, each element written by `element`.
    mutating func array<Element>(_ values: [Element], _ element: (Element, inout JSONWriter) -> Void) {
        put(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            element(value, &self)
        }
        put(UInt8(ascii: "]"))
    }

    /// `{"f1":v1,"f2":v2,…}` with the fields of `keys` in order, each value written by `value`.
    @inline(__always)
    mutating func record<Value, Field>(
        _ record: Value, keys: DumpRecordKeys<Field>, _ value: (Value, Field, inout JSONWriter) -> Void
    ) {
        put(UInt8(ascii: "{"))
        keys.text.withUnsafeBufferPointer { text in
            var start = 0
            for index in keys.fields.indices {
                let end = keys.ends[index]
                let mark = count
                put(UnsafeBufferPointer(rebasing: text[start..<end]))
                value(record, keys.fields[index], &self)
                if omitting {
                    // The field has nothing to say: its key goes too (never flushed mid-record).
                    count = mark
                    omitting = false
                }
                start = end
            }
        }
        put(UInt8(ascii: "}"))
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
        put(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { put(UInt8(ascii: ",")) }
            if linePerRecord { put(UInt8(ascii: "\n")) }
            write(index, &self)
            flushIfFull()
        }
        put(UInt8(ascii: "]"))
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

/// Owns a ``JSONWriter``'s memory: freed with the last copy of the writer (there is one).
private final class Allocation {
    var pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) {
        self.pointer = pointer
    }

    deinit {
        pointer.deallocate()
    }
}
