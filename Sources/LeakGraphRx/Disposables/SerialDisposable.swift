import LeakGraph
import Synchronization

/// Holds one disposable at a time: assigning a new one disposes the previous one.
///
/// After `dispose()`, an assigned disposable is disposed at once. Thread safe.
///
/// ```swift
/// let serial = SerialDisposable()
/// serial.disposable = Disposables.create { print("first") }
/// serial.disposable = Disposables.create()   // first
/// ```
public final class SerialDisposable: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: all mutable state is in `state`, behind its mutex.
    private struct State {
        var current: Disposable?
        var disposed = false
    }

    private let state = Locked(State())

    /// An empty serial disposable.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A serial disposable without a label; `SerialDisposable.init` then names a `() -> SerialDisposable`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// Whether it was disposed.
    public var isDisposed: Bool { state.locked { $0.disposed } }

    /// The current disposable; assigning disposes the previous one (or the new one, when
    /// already disposed).
    public var disposable: Disposable {
        get { state.locked { $0.current } ?? Disposables.create() }
        set {
            let tracked = newValue.trackedObject
            let toDispose: Disposable? = state.locked { state in
                if state.disposed { return newValue }
                let old = state.current
                replaceTrackedEdge(from: old?.trackedObject, to: tracked, label: .disposables)
                state.current = newValue
                return old
            }
            toDispose?.dispose()
        }
    }

    /// Disposes the current disposable and every later one.
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
