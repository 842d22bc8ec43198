import LeakGraph
import Synchronization

/// Disposes a disposable on a scheduler: `dispose()` schedules the disposal, which happens once.
///
/// Holds the disposable (`disposables` edge) until it is disposed.
///
/// ```swift
/// let onMain = ScheduledDisposable(scheduler: MainScheduler.instance, disposable: viewSubscription)
/// ```
public final class ScheduledDisposable: TrackedObject, Cancelable {
    // Thread-safe: the disposable is read and cleared only under `state`'s lock; the
    // scheduler is immutable (schedulers are used from any thread).
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    /// The scheduler the disposal runs on.
    public let scheduler: ImmediateSchedulerType
    private let state: Locked<Disposable?>
    private let disposed = Atomic<Bool>(false)

    /// Disposes `disposable` on `scheduler` when disposed.
    public init(scheduler: ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        state = Locked(disposable)
        super.init()
        if let tracked = disposable.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
    }

    /// Whether the disposal has run.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Schedules the disposal on ``scheduler``.
    public func dispose() {
        _ = scheduler.schedule(self) { scheduled in
            scheduled.disposeInner()
            return Disposables.create()
        }
    }

    private func disposeInner() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let inner = state.locked { current in
            defer { current = nil }
            return current
        }
        removeTrackedEdges(label: .disposables)
        reportState(.disposed)
        inner?.dispose()
    }
}
