/// The generic parameters of one generic closure context, bound to the metadata the context
/// stores, in the form the runtime resolves mangled names in: a generic environment (one level
/// per depth, cumulative parameter counts, one key parameter descriptor each, no requirements;
/// associated types are found by the runtime through the conformance they name) and the flat
/// argument array.
///
/// Capture type names use the parameters of the closure's own generic signature, and its
/// metadata sources say where each parameter's metadata is; a parameter without a readable
/// source makes the environment incomplete, and no name is resolved in it (a wrong argument
/// would lay out the captures after it at wrong offsets).
struct GenericCaptureEnvironment {
    /// The arguments in the environment's order (0 for a parameter nothing binds).
    let flatArguments: [UInt]
    /// Whether every parameter up to the deepest one bound has an argument.
    let isComplete: Bool
    private let encoded: [UInt8]

    /// - Parameter isUsable: false when the context binds something this environment cannot
    ///   express (a parameter pack, a parameter without a readable source): then no name is
    ///   resolved in it.
    init(arguments: [GenericParameter: UInt], isUsable: Bool = true) {
        let depths = (arguments.keys.map(\.depth).max() ?? -1) + 1
        var counts: [Int] = []
        var flat: [UInt] = []
        var complete = !arguments.isEmpty
        for depth in 0..<depths {
            let last = arguments.keys.filter { $0.depth == depth }.map(\.index).max() ?? -1
            if last < 0 { complete = false }
            for index in stride(from: 0, through: last, by: 1) {
                let word = arguments[GenericParameter(depth: depth, index: index)] ?? 0
                if word == 0 { complete = false }
                flat.append(word)
            }
            counts.append(flat.count)
        }
        flatArguments = flat
        isComplete = complete && isUsable
        // Flags (levels in the low 12 bits, 0 requirements above), the cumulative count of each
        // level (16 bits), then one descriptor byte per parameter: a type parameter with a key
        // argument (0x80).
        var bytes: [UInt8] = []
        let flags = UInt32(depths)
        withUnsafeBytes(of: flags.littleEndian) { bytes += $0 }
        for count in counts { withUnsafeBytes(of: UInt16(count).littleEndian) { bytes += $0 } }
        bytes += [UInt8](repeating: 0x80, count: flat.count)
        bytes += [UInt8](repeating: 0, count: 8)  // padding: the runtime may read requirements' alignment
        encoded = bytes
    }

    /// The type a mangled name denotes with the parameters bound; nil when the runtime cannot
    /// resolve it.
    func resolve(_ name: UnsafeRawPointer, length: Int) -> Any.Type? {
        guard isComplete else { return nil }
        return encoded.withUnsafeBytes { environment in
            flatArguments.withUnsafeBytes { arguments in
                _getTypeByMangledNameInEnvironment(
                    name.assumingMemoryBound(to: UInt8.self), UInt(length), genericEnvironment: environment.baseAddress,
                    genericArguments: arguments.baseAddress)
            }
        }
    }
}
