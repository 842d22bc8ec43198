import CLeakGraphSupport

/// The entry point: track objects, declare who owns whom, take snapshots.
///
/// Every member is safe to call from any thread. Calls that change the graph take one short
/// critical section; nothing here ever releases an object while holding the registry's lock, so
/// a `deinit` may call back into LeakGraph.
///
/// ```swift
/// final class Parent: TrackedObject { var child: Child? }
/// final class Child: TrackedObject { var parent: Parent? }
///
/// do {
///     let parent = Parent(), child = Child()
///     parent.child = child
///     child.parent = parent
/// }
/// let report = LeakDetector.analyze(LeakGraph.snapshot())
/// print(report.leakedCycles[0].loopDescription)   // Child —parent→ Parent —child→ Child
/// ```
public enum LeakGraph {
    /// Tracks an object that cannot subclass ``TrackedObject``.
    ///
    /// The registry holds it weakly (creating a weak-reference side table, as any `weak var`
    /// does), so tracking never keeps it alive; its death is noticed at the next snapshot or
    /// edge update. Tracking an object twice changes nothing.
    ///
    /// - Parameters:
    ///   - object: The object to track.
    ///   - label: A name shown in reports.
    public static func track(_ object: AnyObject, label: String? = nil) {
        guard isEnabled else { return }
        _ = Registry.shared.slot(of: object, trackIfNeeded: true, label: label)
    }

    /// Declares that `owner` references `target`.
    ///
    /// Untracked ends are tracked first (see ``track(_:label:)``). Declaring the same
    /// `(owner, target, label)` twice records two references; ``removeEdge(from:to:label:)``
    /// removes one. The edge disappears by itself when either end dies.
    ///
    /// - Parameters:
    ///   - owner: The object holding the reference.
    ///   - target: The object referenced.
    ///   - kind: Strong (keeps `target` alive), weak or unowned.
    ///   - label: The role or property name, shown on the edge: `sink`, `observer`, `peer`.
    public static func addEdge(from owner: AnyObject, to target: AnyObject, kind: EdgeKind = .strong, label: String) {
        guard isEnabled,
            let from = Registry.shared.slot(of: owner, trackIfNeeded: true),
            let to = Registry.shared.slot(of: target, trackIfNeeded: true)
        else { return }
        Registry.shared.addEdge(from: from, to: to, kind: kind, label: Registry.shared.labelID(label), recordSite: true)
    }

    /// Removes one reference declared with ``addEdge(from:to:kind:label:)``; does nothing when
    /// there is none.
    public static func removeEdge(from owner: AnyObject, to target: AnyObject, label: String) {
        guard isEnabled,
            let from = Registry.shared.slot(of: owner, trackIfNeeded: false),
            let to = Registry.shared.slot(of: target, trackIfNeeded: false)
        else { return }
        Registry.shared.removeEdge(from: from, to: to, label: Registry.shared.labelID(label))
    }

    /// An immutable picture of every live tracked object and edge.
    ///
    /// With the default options, references held in stored properties and closures are found by
    /// reflection and merged with the declared ones. Cost: about 1 µs per object, plus reflection
    /// (a few µs per object with stored properties).
    public static func snapshot(options: SnapshotOptions = .default) -> GraphSnapshot {
        Snapshotter.take(Registry.shared, options: options)
    }

    /// A point in time to ask later which objects allocated since are still alive.
    public static func checkpoint() -> Checkpoint {
        Checkpoint(nextObjectID: Registry.shared.nextObjectID)
    }

    /// The tracked objects allocated since `checkpoint` that are still alive.
    public static func liveObjects(since checkpoint: Checkpoint, options: SnapshotOptions = .default) -> [ObjectInfo] {
        snapshot(options: options).objects(since: checkpoint)
    }

    /// The tracked objects allocated in `scope` that are still alive.
    public static func liveObjects(in scope: LeakScope, options: SnapshotOptions = .default) -> [ObjectInfo] {
        snapshot(options: options).objects.filter { $0.scope == scope.id }
    }

    /// How many tracked objects are alive (cheap: no snapshot).
    public static var liveObjectCount: Int { Registry.shared.liveCount }

    /// How many declared edges exist (cheap: no snapshot).
    public static var edgeCount: Int { Registry.shared.liveEdgeCount }

    /// Bytes the registry's own tables occupy (objects, edges, stacks, labels), and the records
    /// of whole-process tracking when it is on.
    public static var registryByteCount: Int { Registry.shared.byteCount + Int(lg_process_table_bytes()) }

    /// Whether tracking is on. Set from the environment (`LEAKGRAPH=off` turns it off); turning
    /// it off stops new registrations, objects already tracked stay tracked until they die.
    public static var isEnabled: Bool {
        get { Configuration.shared.enabled.load(ordering: .relaxed) }
        set {
            #if !LEAKGRAPH_DISABLED
                if newValue { Configuration.shared.everEnabled.store(true, ordering: .relaxed) }
                Configuration.shared.enabled.store(newValue, ordering: .relaxed)
            #endif
        }
    }

    /// When allocation stacks are captured (default `.all(depth: 32)`; env `LEAKGRAPH_STACKS`).
    public static var stackCaptureMode: StackCaptureMode {
        get { Configuration.shared.stackMode }
        set { Configuration.shared.stackMode = newValue }
    }

    /// Whether edges made through APIs that record their site (``addEdge(from:to:kind:label:)``,
    /// `disposed(by:)`) capture a stack, when stacks are on.
    public static var recordsEdgeSites: Bool {
        get { Configuration.shared.edgeSites.load(ordering: .relaxed) }
        set { Configuration.shared.edgeSites.store(newValue, ordering: .relaxed) }
    }

    /// The most distinct stacks kept (default 200,000); past it new stacks are dropped, with
    /// one warning on stderr.
    public static var stackTableCapacity: Int {
        get { Registry.shared.stackCapacity }
        set { Registry.shared.stackCapacity = newValue }
    }

    /// How many distinct stacks are stored.
    public static var uniqueStackCount: Int { Registry.shared.uniqueStackCount }
}

extension TrackedObject {
    /// Declares a strong (or other) reference from this object to `target`; the fast path used
    /// by LeakGraph's own primitives when both ends are tracked objects.
    public final func addTrackedEdge(to target: TrackedObject, kind: EdgeKind = .strong, label: EdgeLabel) {
        guard leakGraphSlot >= 0, target.leakGraphSlot >= 0 else { return }
        Registry.shared.addEdge(from: leakGraphSlot, to: target.leakGraphSlot, kind: kind, label: label.id)
    }

    /// Like ``addTrackedEdge(to:kind:label:)``, recording the caller's stack as the edge's site
    /// when stacks are on.
    public final func addTrackedEdgeRecordingSite(to target: TrackedObject, kind: EdgeKind = .strong, label: EdgeLabel)
    {
        guard leakGraphSlot >= 0, target.leakGraphSlot >= 0 else { return }
        Registry.shared.addEdge(
            from: leakGraphSlot, to: target.leakGraphSlot, kind: kind, label: label.id, recordSite: true)
    }

    /// Removes one reference declared with ``addTrackedEdge(to:kind:label:)``.
    public final func removeTrackedEdge(to target: TrackedObject, label: EdgeLabel) {
        guard leakGraphSlot >= 0, target.leakGraphSlot >= 0 else { return }
        Registry.shared.removeEdge(from: leakGraphSlot, to: target.leakGraphSlot, label: label.id)
    }

    /// Removes every edge from this object with `label` (for example all `observers`).
    public final func removeTrackedEdges(label: EdgeLabel) {
        guard leakGraphSlot >= 0 else { return }
        Registry.shared.removeAllEdges(from: leakGraphSlot, label: label.id)
    }

    /// ``removeTrackedEdges(label:)`` for two labels in one critical section (a disposer's
    /// `sink` and `subscription`).
    package final func removeTrackedEdges(label: EdgeLabel, or otherLabel: EdgeLabel) {
        guard leakGraphSlot >= 0 else { return }
        Registry.shared.removeAllEdges(from: leakGraphSlot, label: label.id, or: otherLabel.id)
    }

    /// ``addTrackedEdge(to:kind:label:)`` for two targets in one critical section (a sink's
    /// observer and disposer); a nil or untracked target is left out.
    package final func addTrackedEdges(
        to first: TrackedObject?, label firstLabel: EdgeLabel, and second: TrackedObject?,
        label secondLabel: EdgeLabel, kind: EdgeKind = .strong
    ) {
        guard leakGraphSlot >= 0 else { return }
        let firstSlot = first?.trackingSlot ?? -1
        let secondSlot = second?.trackingSlot ?? -1
        guard firstSlot >= 0 || secondSlot >= 0 else { return }
        Registry.shared.addEdges(
            from: leakGraphSlot, (firstSlot, firstLabel.id), (secondSlot, secondLabel.id), kind: kind)
    }

    /// Replaces the edge `label` from `oldTarget` to `newTarget` in one step (either may be nil).
    public final func replaceTrackedEdge(
        from oldTarget: TrackedObject?, to newTarget: TrackedObject?, kind: EdgeKind = .strong, label: EdgeLabel
    ) {
        guard leakGraphSlot >= 0 else { return }
        let old = oldTarget.flatMap { $0.leakGraphSlot >= 0 ? $0.leakGraphSlot : nil }
        let new = newTarget.flatMap { $0.leakGraphSlot >= 0 ? $0.leakGraphSlot : nil }
        guard old != nil || new != nil else { return }
        Registry.shared.replaceEdge(from: leakGraphSlot, oldTarget: old, newTarget: new, kind: kind, label: label.id)
    }
}

/// An interned edge label: create one per role once (as a `static let`) and reuse it, so that
/// declaring an edge does not hash a string.
///
/// ```swift
/// extension EdgeLabel { static let observer = EdgeLabel("observer") }
/// ```
public struct EdgeLabel: Sendable, Hashable {
    let id: Int32
    /// The label's text.
    public let name: String

    /// Interns `name`.
    public init(_ name: String) {
        self.name = name
        self.id = Registry.shared.labelID(name)
    }
}
