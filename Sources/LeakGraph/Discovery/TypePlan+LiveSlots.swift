@_spi(Reflection) import Swift

extension TypePlan {
    /// A `ManagedBuffer` header that says which slots are initialised: a `count` of elements from
    /// slot 0, or (with a `capacity` and a start slot) a ring of `count` elements from the start
    /// slot, as swift-collections' `Deque` keeps it. Offsets are from the object's start.
    struct LiveSlots: Sendable {
        let countOffset: Int
        let startOffset: Int?
        let capacityOffset: Int?

        /// The convention of `header`, stored at `offset` in the object; nil when its fields do
        /// not follow it.
        static func of(header: Any.Type, at offset: Int) -> LiveSlots? {
            guard MetadataKind(of: header) == .structure else { return nil }
            var fields: [String: (offset: Int, type: Any.Type)] = [:]
            _ = _forEachField(of: header, options: []) { name, fieldOffset, type, _ in
                fields[String(cString: name).drop { $0 == "_" }.lowercased()] = (fieldOffset, type)
                return true
            }
            func intOffset(_ names: [String]) -> Int? {
                for name in names {
                    guard let field = fields[name] else { continue }
                    if field.type == Int.self { return offset + field.offset }
                    // A one-`Int` wrapper (`_DequeSlot`).
                    var inner: [(Int, Any.Type)] = []
                    _ = _forEachField(of: field.type, options: []) { _, innerOffset, type, _ in
                        inner.append((innerOffset, type))
                        return true
                    }
                    if inner.count == 1, inner[0].0 == 0, inner[0].1 == Int.self { return offset + field.offset }
                }
                return nil
            }
            guard let count = intOffset(["count"]) else { return nil }
            let start = intOffset(["startslot", "start", "head"])
            let capacity = intOffset(["capacity"])
            if start != nil && capacity == nil { return nil }
            return LiveSlots(countOffset: count, startOffset: start, capacityOffset: capacity)
        }
    }
}
