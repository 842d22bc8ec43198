import Testing

@testable import LeakGraph

/// Holds a closure whose only capture is `self`: the compiler stores the object itself as the
/// context and a thunk (`partial apply for closure #1 in …`, at no line of source) as the function.
private final class SelfCapturingModel: TrackedObject {
    var onChange: (() -> Void)?
    var count = 0

    /// Binds the closure and returns the line it starts on.
    func bind() -> Int {
        onChange = { self.count += 1 }
        return #line - 1
    }
}

@Suite("Forwarder targets", .isolated)
struct ForwarderTargetsTests {
    @Test("a closure whose only capture is self is named at its own line, not at its thunk's none")
    func selfOnlyCaptureNamedAtItsLine() throws {
        let model = SelfCapturingModel()
        let line = model.bind()
        defer { model.onChange = nil }
        let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot())
        let mine = snapshot.myIDs
        let capture = try #require(snapshot.edges.first { $0.label == "capture" && mine.contains($0.from) })
        let closure = try #require(capture.closure)
        #expect(closure.hasPrefix("closure #1 in SelfCapturingModel.bind()"), "\(closure)")
        #expect(closure.hasSuffix("ForwarderTargetsTests.swift:\(line)"), "\(closure)")
    }

    #if arch(x86_64)
        @Test("a jump's target is read from its displacement, relative to the next instruction")
        func jumpTargetsDecoded() {
            // push %rbp; mov %rsp,%rbp; mov %r13,%rdi; pop %rbp; jmp -0x43d (a debug build's thunk).
            let code: [UInt8] = [0x55, 0x48, 0x89, 0xE5, 0x4C, 0x89, 0xEF, 0x5D, 0xE9, 0xC3, 0xFB, 0xFF, 0xFF]
            let targets = ForwarderTargets.directBranchTargets(in: code, at: 0x17_89F0)
            #expect(targets == [0x17_85C0])
            // A call forward, and an opcode byte too close to the end to hold a displacement.
            let call: [UInt8] = [0xE8, 0x10, 0x00, 0x00, 0x00, 0x90, 0xE9, 0x01]
            #expect(ForwarderTargets.directBranchTargets(in: call, at: 0x1000) == [0x1015])
        }
    #elseif arch(arm64)
        @Test("a branch's target is read from its 26-bit displacement, in instructions")
        func branchTargetsDecoded() {
            // b -4 instructions (0x17FFFFFC), at the second instruction.
            let code: [UInt8] = [0x1F, 0x20, 0x03, 0xD5, 0xFC, 0xFF, 0xFF, 0x17]
            #expect(ForwarderTargets.directBranchTargets(in: code, at: 0x2000) == [0x2004 - 16])
        }
    #endif

    @Test("a thunk whose code leads to no function of the name it forwards to is left as it is")
    func wrongNameTurnedDown() {
        // Real code with calls in it, named as a thunk for a closure it is not: every jump's
        // target and every address inside is some other function.
        let code: @convention(c) () -> Void = { print("not the closure", Int.random(in: 0..<10)) }
        let address = UInt(bitPattern: unsafeBitCast(code, to: Int.self))
        let claimed = Symbolicator.Frame(
            function: "partial apply for closure #9 in Nowhere.f()", file: "/<compiler-generated>", line: 0,
            image: "LeakGraphPackageTests.xctest", isInternal: false)
        #expect(!ForwarderTargets.codeBytes(at: address).isEmpty)
        #expect(ForwarderTargets.sourced([address: claimed]) == [address: claimed])
    }

    @Test("frames with a line, and thunks whose code cannot be read, are left as they are")
    func othersUnchanged() {
        let sourced = Symbolicator.Frame(
            function: "partial apply for closure #1 in Model.bind()", file: "/src/Model.swift", line: 12,
            image: "App", isInternal: false)
        let unreadable = Symbolicator.Frame(
            function: "partial apply for closure #2 in Model.bind()", file: "/<compiler-generated>", line: 0,
            image: "App", isInternal: false)
        let plain = Symbolicator.Frame(
            function: "closure #3 in Model.bind()", file: nil, line: nil, image: "App", isInternal: false)
        #expect(!ForwarderTargets.isUnsourcedForwarder(sourced))
        #expect(ForwarderTargets.isUnsourcedForwarder(unreadable))
        #expect(!ForwarderTargets.isUnsourcedForwarder(plain))
        let toThunk = Symbolicator.Frame(
            function: "partial apply for thunk for @escaping @callee_guaranteed () -> ()",
            file: "/<compiler-generated>",
            line: 0, image: "App", isInternal: false)
        #expect(!ForwarderTargets.isUnsourcedForwarder(toThunk))
        // Address 8 is never mapped: nothing is read, nothing is found.
        let frames: [UInt: Symbolicator.Frame] = [8: unreadable, 16: sourced, 24: plain]
        #expect(ForwarderTargets.sourced(frames) == frames)
    }
}
