import Testing

@testable import LeakGraph

@Suite("Symbolicator")
struct SymbolicatorTests {
    @Test("closures in top-level code are named, not left as `closure #1 in `")
    func topLevelClosures() {
        let frame = Symbolicator.Frame(
            function: "closure #1 in ", file: "Sources/App/main.swift", line: 7, image: "App", isInternal: false)
        #expect(frame.description == "closure #1 in top-level code at Sources/App/main.swift:7")
        let nested = Symbolicator.Frame(
            function: "closure #2 in closure #1 in ", file: "main.swift", line: 3, image: nil, isInternal: false)
        #expect(nested.description == "closure #2 in closure #1 in top-level code at main.swift:3")
    }

    @Test("package dependencies are told from the user's code")
    func dependencies() {
        #expect(Symbolicator.isDependencyFile("/work/app/.build/checkouts/OpenCombine/Sources/OpenCombine/Sink.swift"))
        #expect(
            Symbolicator.isDependencyFile(
                "/Users/me/Library/Developer/Xcode/DerivedData/App/SourcePackages/checkouts/RxSwift/Map.swift"))
        #expect(!Symbolicator.isDependencyFile("/work/app/Sources/App/ViewModel.swift"))
    }
}
