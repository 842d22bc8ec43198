/// A leak in code the user cannot change — a library's own cycle — recognised by the shape of
/// its loop, so that reports show it apart ("Library leaks: 1,575 in XCTest — not in your code")
/// and checks never fail on it.
///
/// A pattern is a loop written as reports write it, `Type —label→ Type —label→ …`, where `*` in
/// a type or a label matches any text (a user's `XCTestCase` subclass, a generic argument). It
/// matches a cycle whose loop has the same steps in any rotation:
///
/// ```swift
/// LeakGraph.registerKnownLeak(
///     KnownLeak(library: "MyKit", pattern: "Cache —owner→ * —cache→ Cache",
///               reason: "MyKit's cache and its owner hold each other until the process ends"))
/// ```
public struct KnownLeak: Sendable, Hashable, Codable {
    /// The library it is in: `XCTest`.
    public var library: String
    /// The loop, with `*` wildcards: `* —testRun→ XCTestCaseRun —test→ *`.
    public var pattern: String
    /// Why it is there and why it is not the user's to fix.
    public var reason: String

    /// Creates a known leak.
    public init(library: String, pattern: String, reason: String) {
        self.library = library
        self.pattern = pattern
        self.reason = reason
    }

    /// `XCTest: <reason>`: what the dump's `libraryLeak` field and the reports say.
    public var description: String { "\(library): \(reason)" }

    /// The library a ``Cycle/libraryLeak`` mark names: `XCTest` of `XCTest: <reason>`.
    public static func library(ofMark mark: String) -> String {
        mark.split(separator: ":", maxSplits: 1).first.map(String.init) ?? mark
    }
}
