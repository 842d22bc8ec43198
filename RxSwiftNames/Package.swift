// swift-tools-version:6.2
import PackageDescription

// RxSwift's product and module names — RxSwift, RxRelay, RxTest, RxBlocking, RxCocoa (its
// platform-free traits) — over LeakGraph's modules, for code written against RxSwift: depend on
// this package instead of RxSwift and change no import. A package of its own, so that a build graph holding real RxSwift (a dependency that
// uses it) can still use LeakGraph itself: target names must be unique across a graph, and
// LeakGraph's own package declares none of RxSwift's.
let package = Package(
    name: "RxSwiftNames",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RxSwift", targets: ["RxSwift"]),
        .library(name: "RxRelay", targets: ["RxRelay"]),
        .library(name: "RxTest", targets: ["RxTest"]),
        .library(name: "RxBlocking", targets: ["RxBlocking"]),
        .library(name: "RxCocoa", targets: ["RxCocoa"]),
    ],
    dependencies: [.package(name: "LeakGraph", path: "..")],
    targets: [
        .target(name: "RxSwift", dependencies: [.product(name: "LeakGraphRx", package: "LeakGraph")]),
        .target(name: "RxRelay", dependencies: [.product(name: "LeakGraphRx", package: "LeakGraph")]),
        .target(
            name: "RxTest",
            dependencies: [
                .product(name: "LeakGraphRx", package: "LeakGraph"),
                .product(name: "LeakGraphRxTest", package: "LeakGraph"),
            ]),
        .target(
            name: "RxBlocking",
            dependencies: [
                .product(name: "LeakGraphRx", package: "LeakGraph"),
                .product(name: "LeakGraphRxBlocking", package: "LeakGraph"),
            ]),
        .target(
            name: "RxCocoa",
            dependencies: [
                .product(name: "LeakGraphRx", package: "LeakGraph"),
                .product(name: "LeakGraphRxCocoa", package: "LeakGraph"),
            ]),
        // Code as RxSwift's users and RxSwift's own tests write it, imports unchanged.
        .testTarget(
            name: "RxSwiftNamesTests", dependencies: ["RxSwift", "RxRelay", "RxTest", "RxBlocking", "RxCocoa"]),
    ]
)
