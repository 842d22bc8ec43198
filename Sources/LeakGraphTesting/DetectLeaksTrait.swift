import Foundation
import LeakGraph
import Testing

/// A Swift Testing trait that fails a test when tracked objects allocated during it are still
/// alive after it (once the grace period has passed), with a leak trace and a dot file.
///
/// Apply it to a test or to a whole suite:
/// ```swift
/// @Suite(.detectLeaks) struct ViewModelTests {
///     @Test func binding() { … }
/// }
/// @Test(.detectLeaks(ignoringTypes: ["Cache"], gracePeriod: .milliseconds(500))) func refresh() async { … }
/// ```
/// Objects are attributed to the test whose task allocated them, so the check stays right when
/// tests run in parallel.
public struct LeakDetectionTrait: TestTrait, SuiteTrait, TestScoping {
    /// The check's options.
    public var options: LeakCheckOptions

    /// Applies to every test in a suite.
    public var isRecursive: Bool { true }

    /// Creates the trait.
    public init(options: LeakCheckOptions = LeakCheckOptions()) {
        self.options = options
    }

    /// Runs the test inside a leak scope, then checks what it left alive.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        let (scope, _) = try await LeakScope.run { try await function() }
        var name = test.id.nameComponents.joined(separator: ".")
        // Each case of a parameterized test gets files of its own, named the same in every run.
        if let testCase, testCase.isParameterized {
            name += "-case-" + (Self.stableCaseKey(testCase) ?? "\(scope.id)")
        }
        let outcome = await LeakCheck.run(scope: scope, name: name, options: options)
        for note in outcome.notes { recordWarning(note, at: test.sourceLocation) }
        if let findings = outcome.findings {
            Issue.record(Comment(rawValue: findings.message), sourceLocation: test.sourceLocation)
            attach(findings.artifacts, at: test.sourceLocation)
        }
    }

    /// A short key for a parameterized case that is the same in every run: a hash of its
    /// arguments' ids (Swift Testing derives them from the argument values) and its
    /// discriminator. Swift Testing has no public identity for a case, so they are read by
    /// reflection; nil when that shape is not found (then the file names use the scope's id,
    /// which differs between runs). Hashed, never spelled out: argument values can be anything,
    /// and these are file names.
    static func stableCaseKey(_ testCase: Test.Case) -> String? {
        var hash: UInt32 = 2_166_136_261  // FNV-1a
        var found = false
        func mix(_ byte: UInt8) {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        // Bounded: the case's own fields are a few levels deep; argument values are not entered.
        func visit(_ value: Any, label: String?, depth: Int) {
            guard depth < 8 else { return }
            if label == "value" { return }
            if label == "bytes", let bytes = value as? [UInt8] {
                found = true
                bytes.forEach(mix)
                mix(0xFF)
                return
            }
            if label == "discriminator", let number = value as? Int {
                withUnsafeBytes(of: number.littleEndian) { $0.forEach(mix) }
                return
            }
            for child in Mirror(reflecting: value).children { visit(child.value, label: child.label, depth: depth + 1) }
        }
        visit(testCase, label: nil, depth: 0)
        guard found else { return nil }
        return String(hash, radix: 16)
    }

    /// Something the user must know that is not the test's failure: a warning where Swift
    /// Testing has them (6.3), else a line on standard error.
    private func recordWarning(_ note: String, at location: SourceLocation) {
        #if compiler(>=6.3)
            Issue.record(Comment(rawValue: note), severity: .warning, sourceLocation: location)
        #else
            FileHandle.standardError.write(Data("leakgraph: warning: \(note)\n".utf8))
        #endif
    }

    /// Attaches the dot, SVG and HTML files of a failing check to the test, so that IDEs and CI
    /// keep them with the result (Swift Testing attachments, 6.2 and later).
    private func attach(_ files: [String], at location: SourceLocation) {
        #if compiler(>=6.2)
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                let name = String(file.split(separator: "/").last ?? Substring(file))
                Attachment.record(Array(data), named: name, sourceLocation: location)
            }
        #endif
    }
}

extension Test.ID {
    /// `Suite.test` (no module, no source location, no argument list): names the test in
    /// messages and artifact files.
    fileprivate var nameComponents: [String] {
        let components = String(describing: self).split(separator: "/").map(String.init)
            .filter { !$0.contains(".swift:") }
        guard let first = components.first else { return ["test"] }
        // The first component is `Module.Suite` (or `Module` for a free test function).
        let suite = first.split(separator: ".").dropFirst().map(String.init)
        let rest = components.dropFirst().map { name in
            name.hasSuffix("()") ? String(name.dropLast(2)) : String(name.prefix { $0 != "(" })
        }
        let parts = suite + rest
        return parts.isEmpty ? ["test"] : parts
    }
}

extension Trait where Self == LeakDetectionTrait {
    /// Fails the test when tracked objects it allocated are still alive after it.
    public static var detectLeaks: Self { Self() }

    /// Fails the test when tracked objects it allocated are still alive after it.
    ///
    /// - Parameters:
    ///   - ignoringTypes: Type names to ignore (a name ending in `<` ignores every specialisation).
    ///   - ignoringLabels: Object labels to ignore.
    ///   - gracePeriod: How long to wait for asynchronous teardown.
    ///   - includingUnscopedObjects: Also fail for objects allocated outside the test's task (a
    ///     `DispatchQueue` block, a `Thread`, `Task.detached`) while it was the only checked test
    ///     running. Without it they are reported as a warning when they leak, never ignored. Use it
    ///     in `.serialized` suites: while tests run in parallel such objects cannot be attributed.
    public static func detectLeaks(
        ignoringTypes: Set<String> = [], ignoringLabels: Set<String> = [], gracePeriod: Duration = .milliseconds(100),
        includingUnscopedObjects: Bool = false
    ) -> Self {
        Self(
            options: LeakCheckOptions(
                ignoredTypes: ignoringTypes, ignoredLabels: ignoringLabels, gracePeriod: gracePeriod,
                includesUnscopedObjects: includingUnscopedObjects))
    }
}
