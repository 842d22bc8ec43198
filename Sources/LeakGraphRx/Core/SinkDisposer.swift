import LeakGraph
import Synchronization

/// The disposable a ``Producer`` returns: holds the subscription's sink and its upstream
/// subscription until disposal.
///
/// The sink holds its `SinkDisposer` (`cancel`) and the disposer holds the sink (`sink`): this
/// cycle keeps a subscription alive without an outside owner, and only `dispose()` or a terminal
/// event breaks it. A subscription that is neither disposed nor terminated, and whose disposable
/// was dropped, therefore shows in a snapshot as a leaked cycle through a `SinkDisposer`.
public final class SinkDisposer: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: `sink` and `subscription` are written once before the `set` bit is
    // published (releasing) and cleared once, by the one thread that observes both `set` and
    // `disposed` (acquiring).
    private static let setBit = 1
    private static let disposedBit = 2

    private let state = Atomic<Int>(0)
    // Unchecked exclusivity: the state bits above already serialise every access (see the
    // Sendable note); the dynamic checks cost ~80 instructions per access.
    @exclusivity(unchecked) private var sink: Disposable?
    @exclusivity(unchecked) private var subscription: Disposable?

    /// Creates an empty disposer.
    override init(label: String? = nil) {
        super.init(label: label)
    }

    /// Whether it was disposed.
    public var isDisposed: Bool { state.load(ordering: .acquiring) & Self.disposedBit != 0 }

    /// Stores the sink and the upstream subscription; disposes them at once when the disposer
    /// was disposed during `run` (a synchronous terminal event).
    func setSinkAndSubscription(sink: Disposable, subscription: Disposable) {
        if state.load(ordering: .acquiring) & Self.disposedBit != 0 {
            sink.dispose()
            subscription.dispose()
            return
        }
        self.sink = sink
        self.subscription = subscription
        addTrackedEdges(to: sink.trackedObject, label: .sink, and: subscription.trackedObject, label: .subscription)
        let previous = state.bitwiseOr(Self.setBit, ordering: .acquiringAndReleasing).oldValue
        precondition(previous & Self.setBit == 0, "Sink and subscription already set")
        if previous & Self.disposedBit != 0 { release() }
    }

    /// Disposes the sink, then the upstream subscription, and drops both.
    public func dispose() {
        let previous = state.bitwiseOr(Self.disposedBit, ordering: .acquiringAndReleasing).oldValue
        if previous & Self.disposedBit != 0 { return }
        if previous & Self.setBit != 0 { release() }
    }

    private func release() {
        // Moved out, not copied: copying an `any Disposable` goes through its type's value
        // witnesses (about 140 instructions each, and a release more for the nil stored after).
        let sink = self.sink.take()
        let subscription = self.subscription.take()
        removeTrackedEdges(label: .sink, or: .subscription)
        sink?.dispose()
        subscription?.dispose()
    }
}
