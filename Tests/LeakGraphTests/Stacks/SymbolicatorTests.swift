import Foundation
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

    @Test("source paths are shown relative to their package, whatever the working directory")
    func pathsDoNotDependOnTheWorkingDirectory() throws {
        let folder = NSTemporaryDirectory() + "/symbolicator-\(getpid())"
        let package = folder + "/Consumer"
        try FileManager.default.createDirectory(atPath: package + "/Sources/App", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: package + "/Package.swift", contents: Data()))
        let file = package + "/Sources/App/Model.swift"
        // The package is not the working directory (the tests run in this repository's root);
        // relative to the working directory, the path would have stayed absolute. (The working
        // directory is not changed here: tests running in parallel use it.)
        #expect(!package.hasPrefix(FileManager.default.currentDirectoryPath + "/"))
        #expect(Symbolicator.shortPath(file) == "Sources/App/Model.swift")
        #expect(
            Symbolicator.shortPath("/work/app/.build/checkouts/OpenCombine/Sources/OpenCombine/Map.swift")
                == "OpenCombine/Sources/OpenCombine/Map.swift")
        #expect(Symbolicator.shortPath("/no/package/here/file.swift") == "/no/package/here/file.swift")
    }
}
