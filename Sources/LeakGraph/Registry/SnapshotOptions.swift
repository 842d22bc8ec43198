/// What ``LeakGraph/snapshot(options:)`` gathers besides the declared graph.
public struct SnapshotOptions: Sendable, Hashable {
    /// Find references held in stored properties by reflection (see ``ReferenceDiscovery``).
    ///
    /// Discovery reads the objects' stored properties; taking a snapshot while other threads
    /// assign those same properties is a data race like any unsynchronised read. Test
    /// integration snapshots after a test body, when objects are quiescent. Turn it off for
    /// snapshots taken concurrently with mutation.
    public var discoverReferences: Bool
    /// Scan closures found in stored properties for captured tracked objects.
    public var scanClosures: Bool

    /// Creates options.
    public init(discoverReferences: Bool = true, scanClosures: Bool = true) {
        self.discoverReferences = discoverReferences
        self.scanClosures = scanClosures
    }

    /// Reflection and closure scanning on.
    public static let `default` = SnapshotOptions()
    /// Only what code declared: cheapest, and safe while objects are being mutated.
    public static let declaredOnly = SnapshotOptions(discoverReferences: false, scanClosures: false)
}
