// swift-tools-version:6.1
// LeakGraph's benchmarks, kept out of the root package so the main build stays light.
// Run: Tools/Benchmarks/run.sh (wall-time table + instruction counts), or
//      swift run -c release leakgraph-bench --help
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder (`main` here, something else in other clones).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
let rootPackage = root.lastPathComponent.lowercased()

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
                .product(name: "LeakGraph", package: rootPackage),
                .product(name: "LeakGraphRx", package: rootPackage),
                .product(name: "LeakGraphRxTest", package: rootPackage),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
