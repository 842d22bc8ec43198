import LeakGraph

/// A disposable whose underlying resource is disposed once it was disposed *and* every handle
/// taken with ``retain()`` was disposed: how `groupBy` and `window` keep their source alive while
/// a group or window is still subscribed to.
///
/// ```swift
/// let refCount = RefCountDisposable(disposable: sourceSubscription)
/// let handle = refCount.retain()
/// refCount.dispose()   // the source stays subscribed…
/// handle.dispose()     // …until the last handle goes
/// ```
public final class RefCountDisposable: TrackedObject, Cancelable {
    // Thread-safe: all mutable state is in `state`, behind its lock.
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()

    private struct State {
        var disposable: Disposable?
        var primaryDisposed = false
        var count = 0
    }

    private let state: Locked<State>

    /// A reference-counted wrapper of `disposable`.
    public init(disposable: Disposable) {
        state = Locked(State(disposable: disposable))
        super.init()
        if let tracked = disposable.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
    }

    /// Whether the underlying disposable was disposed.
    public var isDisposed: Bool { state.withLock { $0.disposable == nil } }

    /// A handle that keeps the underlying disposable from being disposed until the handle is
    /// disposed (a no-op handle once the underlying one is gone).
    public func retain() -> Disposable {
        let counted = state.withLock { state -> Bool in
            guard state.disposable != nil else { return false }
            state.count += 1
            return true
        }
        return counted ? RefCountHandle(parent: self) : Disposables.create()
    }

    /// Disposes the underlying disposable now if no handle is held, else when the last one goes.
    public func dispose() {
        let toDispose: Disposable? = state.withLock { state in
            guard state.disposable != nil, !state.primaryDisposed else { return nil }
            state.primaryDisposed = true
            return state.count == 0 ? take(&state) : nil
        }
        finish(toDispose)
    }

    fileprivate func release() {
        let toDispose: Disposable? = state.withLock { state in
            guard state.disposable != nil, state.count > 0 else { return nil }
            state.count -= 1
            return state.primaryDisposed && state.count == 0 ? take(&state) : nil
        }
        finish(toDispose)
    }

    private func take(_ state: inout State) -> Disposable? {
        defer { state.disposable = nil }
        return state.disposable
    }

    private func finish(_ disposable: Disposable?) {
        guard let disposable else { return }
        if let tracked = disposable.trackedObject { removeTrackedEdge(to: tracked, label: .disposables) }
        disposable.dispose()
    }
}

/// One ``RefCountDisposable/retain()`` handle: releases once.
private final class RefCountHandle: TrackedObject, Cancelable {
    // Thread-safe: the parent is Sendable and the flag is behind its lock.
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private let parent: RefCountDisposable
    private let released = Locked(false)

    init(parent: RefCountDisposable) {
        self.parent = parent
        super.init()
        addTrackedEdge(to: parent, label: .parent)
    }

    var isDisposed: Bool { released.withLock { $0 } }

    func dispose() {
        let first = released.withLock { released -> Bool in
            defer { released = true }
            return !released
        }
        if first { parent.release() }
    }
}
