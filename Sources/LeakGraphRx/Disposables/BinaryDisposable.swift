import LeakGraph
import Synchronization

/// Disposes two disposables, in order, on the first `dispose()`, then drops them.
final class BinaryDisposable: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: the two references are written in init and cleared once, by the
    // thread that won the atomic `disposed` exchange.
    private let disposed = Atomic<Bool>(false)
    private var first: Disposable?
    private var second: Disposable?

    init(_ first: Disposable, _ second: Disposable) {
        self.first = first
        self.second = second
        super.init()
        if let tracked = first.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
        if let tracked = second.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let first = self.first
        let second = self.second
        removeTrackedEdges(label: .disposables)
        self.first = nil
        self.second = nil
        first?.dispose()
        second?.dispose()
    }
}
