/// A type's name as reports write it: `String(describing:)`'s text (`Node`, `Box<Int>`), without
/// what `String(describing:)` does first. That asks the runtime whether the metatype conforms to
/// `CustomStringConvertible` and the other printing protocols, and each type it has not seen
/// makes the runtime scan every conformance record of the process: 75 µs a type, seven of the
/// nine seconds a snapshot of 100,000 distinct generic classes took.
package func displayTypeName(_ type: Any.Type) -> String {
    _typeName(type, qualified: false)
}

/// A type's name with its module (`String(reflecting:)`'s text, `Foundation.NSObject`), without
/// the conformance lookups `String(reflecting:)` makes first (see `displayTypeName(_:)`).
package func qualifiedTypeName(_ type: Any.Type) -> String {
    _typeName(type, qualified: true)
}
