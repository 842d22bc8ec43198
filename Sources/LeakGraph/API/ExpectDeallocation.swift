import Foundation

extension LeakGraph {
    /// What ``expectDeallocation(of:within:handler:)`` found when an object outlived its deadline.
    public struct DeallocationFailure: Sendable, CustomStringConvertible {
        /// The object, as it appeared in the snapshot (nil when it was not tracked).
        public var object: ObjectInfo?
        /// The object's type name.
        public var typeName: String
        /// How long was allowed.
        public var deadline: TimeInterval
        /// What holds it: its cycle, or its unknown owners, as a leak trace.
        public var explanation: String

        /// One paragraph for a log.
        public var description: String {
            "leakgraph: \(object?.displayName ?? typeName) was expected to be deallocated within \(deadline) s but is still alive."
                + (explanation.isEmpty ? "" : "\n" + explanation)
        }
    }

    /// Expects `object` to be deallocated within `seconds`; if it outlives the deadline, reports
    /// what holds it (the cycle it is in, or its unknown owners) through `handler`, which prints
    /// to stderr by default. Holds the object weakly.
    ///
    /// Call it where an object's life should end, for example when a screen is dismissed:
    /// ```swift
    /// LeakGraph.expectDeallocation(of: viewModel, within: 1)
    /// ```
    public static func expectDeallocation(
        of object: AnyObject, within seconds: TimeInterval = 1,
        handler: @escaping @Sendable (DeallocationFailure) -> Void = {
            FileHandle.standardError.write(Data(($0.description + "\n").utf8))
        }
    ) {
        let reference = WeakBox(object)
        let typeName = displayTypeName(type(of: object))
        let targetSlot = Registry.shared.slot(of: object, trackIfNeeded: true)
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        _ = targetSlot
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            guard reference.isAlive else { return }
            let (snapshot, report) = LeakGraph.findLeaksToDescribe()
            let id = Registry.shared.objectID(at: address)
            let info = id.flatMap { snapshot.object($0) }
            var explanation = ""
            if let id {
                explanation = LeakTrace.describe(snapshot, report: report, objects: [id])
                if explanation.isEmpty, let count = info?.strongRetainCount {
                    let holders = snapshot.edges.filter { $0.to == id && $0.kind.keepsAlive }
                    explanation =
                        "  held by \(count) strong reference(s)"
                        + (holders.isEmpty
                            ? ""
                            : ": "
                                + holders.map { "\(LeakTrace.name($0.from, snapshot)) —\($0.label)→" }.joined(
                                    separator: ", "))
                }
            }
            handler(DeallocationFailure(object: info, typeName: typeName, deadline: seconds, explanation: explanation))
        }
    }
}

/// A weak reference that can cross threads; only `isAlive` is read.
private struct WeakBox: Sendable {
    // Unchecked: the only state is a `weak` reference, which the runtime reads and clears
    // atomically; the box never hands the object out, it only says whether it is alive.
    private let reference: UncheckedSendable<WeakReference>
    init(_ object: AnyObject) { reference = UncheckedSendable(WeakReference(object: object)) }
    var isAlive: Bool { reference.value.object != nil }
}
