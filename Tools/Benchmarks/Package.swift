// swift-tools-version:6.1
// LeakGraph's benchmarks, kept out of the root package so the main build stays light.
// Run: Tools/Benchmarks/run.sh (wall-time table + instruction counts), or
//      swift run -c release leakgraph-bench --help
import PackageDescription

let package = Package(
    name: "LeakGraphBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "leakgraph-bench",
            dependencies: [
                .product(name: "LeakGraph", package: "main"),
                .product(name: "LeakGraphRx", package: "main"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
