// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "LeakGraph",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LeakGraph", targets: ["LeakGraph"]),
    ],
    traits: [
        // Compiles tracking out: TrackedObject keeps its API but registers nothing.
        .trait(name: "LeakGraphDisabled", description: "Compile LeakGraph's tracking out entirely (zero cost)."),
    ],
    targets: [
        .target(name: "CLeakGraphSupport"),
        .target(
            name: "LeakGraph",
            dependencies: ["CLeakGraphSupport"],
            swiftSettings: [.define("LEAKGRAPH_DISABLED", .when(traits: ["LeakGraphDisabled"]))]
        ),
        .testTarget(name: "LeakGraphTests", dependencies: ["LeakGraph"]),
    ]
)
