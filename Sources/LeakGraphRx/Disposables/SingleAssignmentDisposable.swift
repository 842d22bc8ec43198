import LeakGraph
import Synchronization

/// Holds one disposable assigned once; disposing before the assignment disposes it on arrival.
public final class SingleAssignmentDisposable: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: all mutable state is in `state`, behind its mutex.
    private struct State {
        var current: Disposable?
        var disposed = false
        var assigned = false
    }

    private let state = Locked(State())

    /// An empty single-assignment disposable.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A single-assignment disposable without a label; `SingleAssignmentDisposable.init` then names a `() -> SingleAssignmentDisposable`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// Whether it was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// Assigns the disposable (once; a second assignment is a programming error).
    public func setDisposable(_ disposable: Disposable) {
        let tracked = disposable.trackedObject
        let disposeNow: Bool = state.locked { state in
            precondition(!state.assigned, "SingleAssignmentDisposable assigned twice")
            state.assigned = true
            if state.disposed { return true }
            state.current = disposable
            if let tracked { addTrackedEdge(to: tracked, label: .disposables) }
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Disposes the assigned disposable (now or when it arrives).
    public func dispose() {
        let current: Disposable? = state.locked { state in
            guard !state.disposed else { return nil }
            state.disposed = true
            let current = state.current
            state.current = nil
            if let tracked = current?.trackedObject { removeTrackedEdge(to: tracked, label: .disposables) }
            return current
        }
        current?.dispose()
    }
}
