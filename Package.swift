// swift-tools-version:6.2
import PackageDescription

// LeakGraph's libraries are compiled optimised in a debug build too. A leak check runs inside the
// test suites people run every day, and those are debug builds: unoptimised, the dump at exit of
// a program leaking 500,000 pairs took 14 s instead of 2 s, and this package's own tests 78 s
// instead of 48 s. Your own code stays unoptimised and debuggable; only ours is built with `-O`
// (C with `-O2`). `#if DEBUG` code keeps its debug behaviour. Tools-version 6.2 is what lets a
// package used as a versioned dependency carry these flags.
// To build LeakGraph itself unoptimised (to step through it in a debugger), set
// LEAKGRAPH_UNOPTIMIZED_DEBUG=1 in the environment of `swift build` / `swift test`.
let optimizeInDebug = !["1", "true", "yes"].contains(
    Context.environment["LEAKGRAPH_UNOPTIMIZED_DEBUG"]?.lowercased() ?? "")
let optimizedSwift: [SwiftSetting] = optimizeInDebug ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []
let optimizedC: [CSetting] = optimizeInDebug ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []

let package = Package(
    name: "LeakGraph",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LeakGraph", targets: ["LeakGraph"]),
        .library(name: "LeakGraphRx", targets: ["LeakGraphRx"]),
        .library(name: "LeakGraphRxTest", targets: ["LeakGraphRxTest"]),
        .library(name: "LeakGraphRxBlocking", targets: ["LeakGraphRxBlocking"]),
        .library(name: "LeakGraphRxCocoa", targets: ["LeakGraphRxCocoa"]),
        .library(name: "LeakGraphTesting", targets: ["LeakGraphTesting"]),
        .library(name: "LeakGraphCombine", targets: ["LeakGraphCombine"]),
        .library(name: "LeakGraphDump", targets: ["LeakGraphDump"]),
        .executable(name: "leakgraph", targets: ["leakgraph"]),
    ],
    traits: [
        // Compiles tracking out: TrackedObject keeps its API but registers nothing.
        .trait(name: "LeakGraphDisabled", description: "Compile LeakGraph's tracking out entirely (zero cost).")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "CLeakGraphSupport",
            cSettings: [.define("LEAKGRAPH_DISABLED", .when(traits: ["LeakGraphDisabled"]))] + optimizedC
        ),
        .target(
            name: "LeakGraph",
            dependencies: ["CLeakGraphSupport"],
            swiftSettings: [.define("LEAKGRAPH_DISABLED", .when(traits: ["LeakGraphDisabled"]))] + optimizedSwift
        ),
        .target(name: "LeakGraphDump", dependencies: ["LeakGraph"], swiftSettings: optimizedSwift),
        .testTarget(name: "LeakGraphDumpTests", dependencies: ["LeakGraphDump", "LeakGraph", "LeakGraphTestSupport"]),
        .target(name: "LeakGraphTestSupport", path: "Tests/Support"),
        .target(name: "LeakGraphRx", dependencies: ["LeakGraph"], swiftSettings: optimizedSwift),
        .target(
            name: "LeakGraphCombine",
            dependencies: [
                "LeakGraph",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: optimizedSwift
        ),
        .testTarget(name: "LeakGraphCombineTests", dependencies: ["LeakGraphCombine", "LeakGraph"]),
        .target(
            name: "LeakGraphTesting", dependencies: ["LeakGraph", "CLeakGraphSupport"], swiftSettings: optimizedSwift),
        .testTarget(
            name: "LeakGraphTestingTests",
            dependencies: ["LeakGraphTesting", "LeakGraph", "LeakGraphRx", "DiscoveryCorpus"]),
        .target(
            name: "LeakGraphCLI",
            dependencies: [
                "LeakGraph", "LeakGraphDump", "LeakGraphRx", "LeakGraphCombine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/LeakGraphCLI",
            swiftSettings: optimizedSwift
        ),
        .executableTarget(name: "leakgraph", dependencies: ["LeakGraphCLI"], path: "Tools/leakgraph"),
        .testTarget(
            name: "LeakGraphCLITests",
            dependencies: ["LeakGraphCLI", "leakgraph", "LeakGraph", "LeakGraphDump", "LeakGraphTestSupport"]),
        .executableTarget(name: "leakgraph-demo", dependencies: ["LeakGraph", "LeakGraphRx"], path: "Tools/Demo"),
        .executableTarget(name: "cycle-example", dependencies: ["LeakGraph"], path: "Tools/Examples/CycleExample"),
        .executableTarget(
            name: "plain-classes-example", dependencies: ["LeakGraph"], path: "Tools/Examples/PlainClasses"),
        .executableTarget(name: "fork-stress-example", dependencies: ["LeakGraph"], path: "Tools/Examples/ForkStress"),
        .executableTarget(name: "server-example", dependencies: ["LeakGraph"], path: "Tools/Examples/Server"),
        .executableTarget(name: "unload-example", dependencies: ["LeakGraph"], path: "Tools/Examples/Unload"),
        .target(name: "DiscoveryCorpus", dependencies: ["LeakGraph"], path: "Tools/Examples/DiscoveryCorpus/Scenarios"),
        .executableTarget(
            name: "discovery-corpus", dependencies: ["DiscoveryCorpus", "LeakGraph"],
            path: "Tools/Examples/DiscoveryCorpus/Program"),
        .testTarget(
            name: "LeakGraphTests",
            dependencies: [
                "LeakGraph", "LeakGraphDump", "LeakGraphTestSupport", "cycle-example", "discovery-corpus",
                "plain-classes-example", "fork-stress-example", "server-example", "unload-example",
            ]),
        .testTarget(
            name: "LeakGraphRxTests",
            dependencies: ["LeakGraphRx", "LeakGraphRxCocoa", "LeakGraph", "LeakGraphTestSupport"]),
        .target(name: "LeakGraphRxBlocking", dependencies: ["LeakGraphRx"], swiftSettings: optimizedSwift),
        // RxCocoa's platform-free traits: Driver, Signal, SharedSequence.
        .target(name: "LeakGraphRxCocoa", dependencies: ["LeakGraphRx", "LeakGraph"], swiftSettings: optimizedSwift),
        .target(
            name: "LeakGraphRxTest", dependencies: ["LeakGraphRx", "LeakGraph", "LeakGraphTesting"],
            swiftSettings: optimizedSwift),
        .testTarget(
            name: "LeakGraphRxTestTests",
            dependencies: [
                "LeakGraphRxTest", "LeakGraphRxBlocking", "LeakGraphRx", "LeakGraph", "LeakGraphTesting",
            ]),
    ]
)

// CI's sanitizer jobs run a few of the test targets. LEAKGRAPH_TEST_TARGETS (comma-separated test
// target names) keeps only those and what they depend on, so those builds skip what no test of
// theirs runs (the command-line tool and ArgumentParser, RxTest's suite): about a minute each. Unset,
// the package is whole. A name that is not a test target stops the build, rather than running
// fewer tests than asked.
if let listed = Context.environment["LEAKGRAPH_TEST_TARGETS"], !listed.isEmpty {
    let targetsByName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var pending = listed.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
    for name in pending where targetsByName[name]?.type != .test {
        fatalError("LEAKGRAPH_TEST_TARGETS: \(name) is not a test target of this package")
    }
    var kept = Set<String>()
    while let name = pending.popLast() {
        guard let target = targetsByName[name], kept.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let dependencyName, _), .byNameItem(let dependencyName, _):
                pending.append(dependencyName)
            default:
                break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
