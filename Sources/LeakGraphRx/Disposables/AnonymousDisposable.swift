import LeakGraph
import Synchronization

/// Runs an action on the first `dispose()` and drops it (what it captured is released then).
///
/// The action is a stored closure: LeakGraph's snapshot finds the tracked objects it captures
/// (`capture` edges) while it is still held.
final class AnonymousDisposable: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: `action` is written in init and cleared once, by the thread that won
    // the atomic `disposed` exchange.
    private let disposed = Atomic<Bool>(false)
    private var action: (() -> Void)?

    init(_ action: @escaping () -> Void) {
        self.action = action
        super.init()
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let action = self.action
        self.action = nil
        action?()
    }
}
