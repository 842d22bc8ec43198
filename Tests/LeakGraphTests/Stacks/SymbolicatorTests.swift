import Foundation
import Testing

@testable import LeakGraph

@Suite("Symbolicator")
struct SymbolicatorTests {
    @Test("symbolicating a snapshot with nothing to name writes nothing: objects and edges it shares are not copied")
    func nothingToNameCopiesNothing() {
        let objects = (1...64).map { ObjectInfo(id: UInt64($0), type: $0.isMultiple(of: 2) ? "Parent" : "Child") }
        let edges = (1...32).map {
            EdgeInfo(from: UInt64(2 * $0), to: UInt64(2 * $0 - 1), kind: .strong, label: "child")
        }
        let shared = GraphSnapshot(objects: objects, edges: edges)
        var snapshot = shared
        Symbolicator.symbolicate(&snapshot, stacks: nil)
        // A write, or a loop that might write, would have made the arrays unique: copied them.
        #expect(
            snapshot.objects.withUnsafeBufferPointer { $0.baseAddress }
                == shared.objects.withUnsafeBufferPointer { $0.baseAddress })
        #expect(
            snapshot.edges.withUnsafeBufferPointer { $0.baseAddress }
                == shared.edges.withUnsafeBufferPointer { $0.baseAddress })
        #expect(snapshot == shared)
    }

    @Test("closures in top-level code are named, not left as `closure #1 in `")
    func topLevelClosures() {
        let frame = Symbolicator.Frame(
            function: "closure #1 in ", file: "Sources/App/main.swift", line: 7, image: "App", isInternal: false)
        #expect(frame.description == "closure #1 in top-level code at Sources/App/main.swift:7")
        let nested = Symbolicator.Frame(
            function: "closure #2 in closure #1 in ", file: "main.swift", line: 3, image: nil, isInternal: false)
        #expect(nested.description == "closure #2 in closure #1 in top-level code at main.swift:3")
    }

    @Test("package dependencies are told from the user's code: checkouts, path dependencies, the toolchain's sources")
    func dependencies() {
        let roots = ["/work/app"]
        func isDependency(_ file: String) -> Bool { Symbolicator.isDependencyFile(file, roots: roots) }
        #expect(isDependency("/work/app/.build/checkouts/OpenCombine/Sources/OpenCombine/Sink.swift"))
        #expect(
            isDependency("/Users/me/Library/Developer/Xcode/DerivedData/App/SourcePackages/checkouts/RxSwift/Map.swift")
        )
        #expect(isDependency("/work/RxSwift/RxSwift/Observables/Map.swift"))  // .package(path: "../RxSwift")
        #expect(isDependency("/work/application/Sources/App/ViewModel.swift"))  // a sibling sharing a prefix
        #expect(isDependency("/home/build-user/swift-corelibs-xctest/Sources/XCTest/Private/XCTestCaseRun.swift"))
        #expect(!isDependency("/work/app/Sources/App/ViewModel.swift"))
        #expect(!isDependency("/work/app/Tests/AppTests/ViewModelTests.swift"))
        // Without a root package, only checkouts count.
        #expect(!Symbolicator.isDependencyFile("/work/RxSwift/Map.swift", roots: nil))
        #expect(Symbolicator.isDependencyFile("/work/app/.build/checkouts/RxSwift/Map.swift", roots: nil))
    }

    @Test("the root package of this test process is this repository (the folder that holds its .build)")
    func rootPackageOfThisProcess() throws {
        let roots = try #require(Symbolicator.rootPackage)
        #expect(
            roots.contains {
                FileManager.default.fileExists(atPath: $0 + "/Sources/LeakGraph/Stacks/Symbolicator.swift")
            })
    }

    @Test(
        "the allocation site is the user's frame: past a subclass's initialiser chain, into inlined frames, out of dependencies"
    )
    func userFrameRules() {
        func frame(
            _ function: String, file: String? = "/work/app/Sources/App/main.swift", line: Int = 10,
            isInternal: Bool = false
        ) -> Symbolicator.Frame {
            Symbolicator.Frame(function: function, file: file, line: line, image: "App", isInternal: isInternal)
        }
        let roots = ["/work/app"]
        // TrackedObject.init ← Animal.init ← Pet.init ← Pet.__allocating_init ← the line that made it.
        let subclass = [
            frame("TrackedObject.init()", file: nil, line: 0, isInternal: true), frame("Animal.init(name:)", line: 5),
            frame("Pet.init(name:)", line: 12), frame("Pet.__allocating_init(name:)", line: 0),
            frame("makePets()", line: 40),
        ]
        #expect(Symbolicator.userFrameIndex(in: subclass, roots: roots) == 4)
        // A tracked Child made inside Parent.init: the site is Parent.init's line (where the child is made).
        let nested = [
            frame("TrackedObject.init()", file: nil, line: 0, isInternal: true), frame("Child.init()", line: 3),
            frame("Child.__allocating_init()", line: 0), frame("Parent.init()", line: 7),
            frame("Parent.__allocating_init()", line: 0), frame("main", line: 20),
        ]
        #expect(Symbolicator.userFrameIndex(in: nested, roots: roots) == 3)
        // Release: the allocating initialiser (line 0) and makePair() inlined into run().
        let inlined = [
            frame("Child.__allocating_init(parent:)", line: 0), frame("makePair()", line: 36),
            frame("run()", line: 52),
        ]
        #expect(Symbolicator.userFrameIndex(in: inlined, roots: roots) == 1)
        // A leak made inside a path dependency: the user's call that made it.
        let dependency = [
            frame("MapSink.init()", file: "/work/RxSwift/RxSwift/Map.swift", line: 22),
            frame("Map.run()", file: "/work/RxSwift/RxSwift/Map.swift", line: 50),
            frame("ViewModel.bind()", line: 31),
        ]
        #expect(Symbolicator.userFrameIndex(in: dependency, roots: roots) == 2)
        // Entirely inside a dependency: its first real line.
        #expect(Symbolicator.userFrameIndex(in: Array(dependency.prefix(2)), roots: roots) == 0)
    }

    @Test("code the package manager generated (the test runner) is never the allocation site")
    func generatedRunnerIsNotTheSite() {
        func frame(_ function: String, file: String?, line: Int, isInternal: Bool = false) -> Symbolicator.Frame {
            Symbolicator.Frame(function: function, file: file, line: line, image: "AppTests", isInternal: isInternal)
        }
        let roots = ["/work/app"]
        let runner = frame(
            "static Runner.main()",
            file: "/work/app/.build/x86_64-unknown-linux-gnu/debug/AppPackageTests.derived/runner.swift",
            line: 543)
        // Foundation's main bundle, made while XCTest starts: no line of the user's.
        let startup = [
            frame("one-time initialization function for _mainBundle", file: nil, line: 0, isInternal: true),
            frame("XCTMain(_:)", file: nil, line: 0, isInternal: true), runner,
        ]
        #expect(Symbolicator.userFrameIndex(in: startup, roots: roots) == nil)
        // The runner's entry thunk, which the compiler made.
        let entry = frame("static Runner.$main()", file: "/<compiler-generated>", line: 0)
        #expect(Symbolicator.userFrameIndex(in: startup + [entry], roots: roots) == nil)
        // Made by a test: the test's line, past the runner.
        let inTest = [
            frame("Model.init()", file: "/work/app/Sources/App/Model.swift", line: 0),
            frame("ModelTests.testMake()", file: "/work/app/Tests/AppTests/ModelTests.swift", line: 9),
            frame("XCTestCase.invokeTest()", file: nil, line: 0, isInternal: true), runner,
        ]
        #expect(Symbolicator.userFrameIndex(in: inTest, roots: roots) == 1)
        #expect(Symbolicator.isGeneratedFile(".build/debug/App.build/DerivedSources/resource_bundle_accessor.swift"))
        // A build folder elsewhere (`swift build --scratch-path`).
        #expect(Symbolicator.isGeneratedFile("/tmp/scratch/debug/AppPackageTests.derived/runner.swift"))
        #expect(!Symbolicator.isGeneratedFile("/work/app/.build/checkouts/Lib/Sources/Lib/Lib.swift"))
    }

    @Test("a file guessed from the symbol table for a Swift or C++ function without debug information is dropped")
    func guessedFilesAreDropped() {
        // libFoundation.so has no DWARF: the symbol table's last file entry is the C runtime's.
        #expect(Symbolicator.sourceFile("crtstuff.c", line: 0, symbol: "$s10Foundation6BundleC4mainACvgZ") == nil)
        #expect(
            Symbolicator.sourceFile("crtstuff.c", line: nil, symbol: "_ZN5swift14threading_impl9once_slowEv") == nil)
        // A C function's own file entry is right; a line makes any answer trustworthy.
        #expect(Symbolicator.sourceFile("CFBundle.c", line: 0, symbol: "_CFBundleCreate") == "CFBundle.c")
        #expect(Symbolicator.sourceFile("crtstuff.c", line: 0, symbol: "CFBasicHashCreate") == nil)
        #expect(
            Symbolicator.sourceFile("/work/app/main.swift", line: 4, symbol: "$s3App4mainyyF") == "/work/app/main.swift"
        )
        #expect(Symbolicator.sourceFile("main.swift", line: 0, symbol: "$s3App4mainyyF") == "main.swift")
        // Swift's own word for a thunk or a specialisation: kept.
        #expect(
            Symbolicator.sourceFile("/<compiler-generated>", line: 0, symbol: "$s3App5ClockV5sleepyyYaKF")
                == "/<compiler-generated>")
        #expect(Symbolicator.sourceFile("Mutex.h", line: 0, symbol: "_ZN5swift5MutexC1Ev") == "Mutex.h")
    }

    @Test("only LeakGraph's own innermost frames are left out of a stack, never a library's")
    func ownFramesAreOnlyLeakGraphs() {
        func frame(_ function: String, file: String? = nil, isLeakGraph: Bool = false) -> Symbolicator.Frame {
            Symbolicator.Frame(
                function: function, file: file, line: 0, image: "libFoundation.so", isInternal: true,
                isLeakGraph: isLeakGraph)
        }
        // Whole-process: the stack starts at the allocating function, a library's without a file.
        let library = [
            frame("one-time initialization function for _mainBundle"), frame("static Bundle.main.getter"),
            frame("XCTMain(_:)"),
        ]
        #expect(Symbolicator.ownFrameCount(library) == 0)
        // A tracked object: the capture and the initialiser are LeakGraph's.
        let tracked = [
            frame("lg_capture_stack", isLeakGraph: true), frame("TrackedObject.init()", isLeakGraph: true),
            frame("0x1f00"), frame("Model.init()", file: "/work/app/Sources/App/Model.swift"),
        ]
        #expect(Symbolicator.ownFrameCount(tracked) == 3)
        #expect(Symbolicator.ownFrameCount([frame("lg_capture_stack", isLeakGraph: true)]) == 0)
        // A release build without debug information: LeakGraph's C functions and its runtime
        // entry points by name (the runtime's own, in libswiftCore, are not LeakGraph's).
        let unnamed = [frame("lg_alloc_recording"), frame("swift_allocObject"), frame("makeModel()")]
        #expect(Symbolicator.ownFrameCount(unnamed) == 2)
        let runtime = Symbolicator.Frame(
            function: "swift_allocObject", file: nil, line: 0, image: "libswiftCore.so", isInternal: true)
        #expect(Symbolicator.ownFrameCount([runtime, frame("makeModel()")]) == 0)
        #expect(Symbolicator.isLeakGraphSymbol("$s15LeakGraphRxTest13TestSchedulerC"))
        #expect(!Symbolicator.isLeakGraphSymbol("lg_capture_stack"))
    }

    @Test("C++ names are demangled, Swift ones shortened, others left alone")
    func cPlusPlusNamesAreDemangled() {
        #if os(Linux)
            #expect(
                Symbolicator.demangle("_ZN5swift14threading_impl9once_slowERNS0_6once_tEPFvPvES3_")
                    == "swift::threading_impl::once_slow(swift::threading_impl::once_t&, void (*)(void*), void*)")
        #endif
        #expect(Symbolicator.demangle("_Znot a name") == "_Znot a name")
        #expect(Symbolicator.demangle("CFBundleGetMainBundle") == "CFBundleGetMainBundle")
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
        // Not this process's root package (this repository): named, as a path dependency is.
        #expect(Symbolicator.shortPath(file) == "Consumer/Sources/App/Model.swift")
        let own = try #require(Symbolicator.rootPackage?.first)
        #expect(
            Symbolicator.shortPath(own + "/Sources/LeakGraph/Stacks/Symbolicator.swift")
                == "Sources/LeakGraph/Stacks/Symbolicator.swift")
        #expect(
            Symbolicator.shortPath("/work/app/.build/checkouts/OpenCombine/Sources/OpenCombine/Map.swift")
                == "OpenCombine/Sources/OpenCombine/Map.swift")
        #expect(Symbolicator.shortPath("/no/package/here/file.swift") == "/no/package/here/file.swift")
    }
}
