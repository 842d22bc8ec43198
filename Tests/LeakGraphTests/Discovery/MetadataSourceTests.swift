import Testing

@testable import LeakGraph

@Suite("Metadata sources of generic closure contexts")
struct MetadataSourceTests {
    private func source(_ text: String) -> MetadataSource? { MetadataSource(mangled: Array(text.utf8)) }
    private func parameter(_ text: String) -> GenericParameter? { GenericParameter(mangled: Array(text.utf8)) }

    @Test("bindings, reference and metadata captures, and generic arguments of other sources parse")
    func sourcesParse() {
        #expect(source("B0") == .binding(0))
        #expect(source("B12") == .binding(12))
        #expect(source("R1") == .referenceCapture(1))
        #expect(source("M3") == .metadataCapture(3))
        #expect(source("G0R1_") == .genericArgument(0, of: .referenceCapture(1)))
        #expect(source("G1G0B2__") == .genericArgument(1, of: .genericArgument(0, of: .binding(2))))
    }

    @Test("unknown or malformed sources are refused, never guessed")
    func malformedSourcesAreRefused() {
        for text in ["", "B", "S", "X0", "G0R1", "B0x", "sB0", "B1234567"] {
            #expect(source(text) == nil, "\(text)")
        }
    }

    @Test("generic parameters: x, q_, q0_, qd__, qd_0_ name depth and index")
    func parametersParse() {
        #expect(parameter("x") == GenericParameter(depth: 0, index: 0))
        #expect(parameter("qz") == GenericParameter(depth: 0, index: 0))
        #expect(parameter("q_") == GenericParameter(depth: 0, index: 1))
        #expect(parameter("q0_") == GenericParameter(depth: 0, index: 2))
        #expect(parameter("q9_") == GenericParameter(depth: 0, index: 11))
        #expect(parameter("qd__") == GenericParameter(depth: 1, index: 0))
        #expect(parameter("qd_0_") == GenericParameter(depth: 1, index: 1))
        #expect(parameter("qd0__") == GenericParameter(depth: 2, index: 0))
    }

    @Test("dependent member types and packs are not plain parameters")
    func othersAreNotParameters() {
        for text in ["x7ElementQz", "xxQp_QP", "q", "qd_", "y", "x_"] {
            #expect(parameter(text) == nil, "\(text)")
        }
    }

    @Test("an environment is complete only when every parameter up to the deepest bound has an argument")
    func environmentCompleteness() {
        let complete = GenericCaptureEnvironment(arguments: [
            GenericParameter(depth: 0, index: 0): 0x1000, GenericParameter(depth: 0, index: 1): 0x2000,
        ])
        #expect(complete.isComplete)
        #expect(complete.flatArguments == [0x1000, 0x2000])
        let gap = GenericCaptureEnvironment(arguments: [GenericParameter(depth: 0, index: 1): 0x2000])
        #expect(!gap.isComplete)
        let deeper = GenericCaptureEnvironment(arguments: [
            GenericParameter(depth: 0, index: 0): 0x1000, GenericParameter(depth: 1, index: 0): 0x3000,
        ])
        #expect(deeper.isComplete)
        #expect(deeper.flatArguments == [0x1000, 0x3000])
        #expect(!GenericCaptureEnvironment(arguments: [:]).isComplete)
        #expect(
            !GenericCaptureEnvironment(arguments: [GenericParameter(depth: 0, index: 0): 1], isUsable: false).isComplete
        )
    }

    @Test("a name is resolved in the environment with the context's own arguments")
    func resolvesInTheEnvironment() {
        // `[x]` (an array of the first parameter), with x = Int.
        let environment = GenericCaptureEnvironment(arguments: [
            GenericParameter(depth: 0, index: 0): UInt(bitPattern: unsafeBitCast(Int.self as Any.Type, to: Int.self))
        ])
        let name: [UInt8] = Array("SayxG".utf8) + [0]
        let type = name.withUnsafeBytes { environment.resolve($0.baseAddress!, length: 5) }
        #expect(type.map { $0 == [Int].self } == true)
    }
}
