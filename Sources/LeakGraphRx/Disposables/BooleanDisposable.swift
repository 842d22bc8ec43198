import LeakGraph
import Synchronization

/// A disposable that only remembers whether it was disposed.
///
/// ```swift
/// let cancelled = BooleanDisposable()
/// worker.run { cancelled.isDisposed }
/// cancelled.dispose()
/// ```
public final class BooleanDisposable: TrackedObject, Cancelable {
    // Thread-safe: its only state is an atomic (the checked form is refused to every
    // subclass of `TrackedObject`, which is thread safe but not `Sendable`).
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private let disposed: Atomic<Bool>

    /// A disposable not disposed yet.
    public init() {
        disposed = Atomic(false)
        super.init()
    }

    /// A disposable, disposed already when `isDisposed`.
    public init(isDisposed: Bool) {
        disposed = Atomic(isDisposed)
        super.init(state: isDisposed ? .disposed : .unspecified)
    }

    /// Whether it was disposed.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Marks it disposed.
    public func dispose() {
        if !disposed.exchange(true, ordering: .acquiringAndReleasing) { reportState(.disposed) }
    }
}
