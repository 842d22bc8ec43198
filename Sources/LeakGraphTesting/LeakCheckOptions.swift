import Foundation

/// What a leak check ignores and how long it waits.
public struct LeakCheckOptions: Sendable, Hashable {
    /// Type names to ignore (exact, or a prefix ending in `<` for every specialisation:
    /// `"ReplaySubject<"`).
    public var ignoredTypes: Set<String>
    /// Object labels to ignore.
    public var ignoredLabels: Set<String>
    /// How long to wait for objects to die after the test body, for asynchronous teardown
    /// (work scheduled on a queue, a task finishing). Checked every 10 ms, so a clean test never
    /// waits the whole period.
    public var gracePeriod: Duration
    /// Where dot (and SVG) files are written: `LEAKGRAPH_ARTIFACTS_DIR`, else `.build/leakgraph`.
    public var artifactsDirectory: String
    /// Also fail the test for objects allocated outside its task tree (a `DispatchQueue` block, a
    /// `Thread`, `Task.detached`) while it ran: those allocated while it was the only checked test
    /// open, and those allocated while several were (which cannot be attributed). Off by default,
    /// because tests without the check may allocate on other threads at the same time: then such
    /// objects are reported as a warning when they leak, never ignored. Turn it on in
    /// `.serialized` suites that allocate on queues.
    public var includesUnscopedObjects: Bool
    /// Whether a failing check writes its dot / SVG / HTML files. Off for the self-test, whose
    /// planted leak is the expected outcome, not something to look at.
    var writesArtifacts = true

    /// The same as ``includesUnscopedObjects``, spelled as the trait's parameter.
    public var includingUnscopedObjects: Bool {
        get { includesUnscopedObjects }
        set { includesUnscopedObjects = newValue }
    }

    /// Creates options.
    public init(
        ignoredTypes: Set<String> = [], ignoredLabels: Set<String> = [], gracePeriod: Duration = .milliseconds(100),
        artifactsDirectory: String? = nil, includesUnscopedObjects: Bool = false
    ) {
        self.includesUnscopedObjects = includesUnscopedObjects
        self.ignoredTypes = ignoredTypes
        self.ignoredLabels = ignoredLabels
        self.gracePeriod = gracePeriod
        self.artifactsDirectory = artifactsDirectory ?? LeakCheckOptions.defaultArtifactsDirectory
    }

    /// `LEAKGRAPH_ARTIFACTS_DIR`, or `.build/leakgraph`.
    public static var defaultArtifactsDirectory: String {
        let value = ProcessInfo.processInfo.environment["LEAKGRAPH_ARTIFACTS_DIR"] ?? ""
        return value.isEmpty ? ".build/leakgraph" : value
    }

    func ignores(type: String, label: String?) -> Bool {
        if let label, ignoredLabels.contains(label) { return true }
        if ignoredTypes.contains(type) { return true }
        return ignoredTypes.contains { $0.hasSuffix("<") && type.hasPrefix($0) }
    }
}
