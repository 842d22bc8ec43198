import LeakGraph
import Synchronization

/// A group of disposables disposed together; members can be added and removed by key.
///
/// Disposing the group disposes every member in insertion order and drops them; a disposable
/// inserted after that is disposed at once. Thread safe.
///
/// ```swift
/// let group = CompositeDisposable()
/// let key = group.insert(Disposables.create { print("a") })
/// group.remove(for: key!)   // a
/// ```
public final class CompositeDisposable: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: all mutable state is in `state`, behind its mutex.

    /// Identifies a member, to remove it later.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct State {
        var disposables: [(key: Int, disposable: Disposable)]? = []
        var nextKey = 0
    }

    private let state = Locked(State())

    /// An empty group.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A composite disposable without a label; `CompositeDisposable.init` then names a `() -> CompositeDisposable`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// A group holding `disposables`.
    public convenience init(_ disposable1: Disposable, _ disposable2: Disposable, _ rest: Disposable...) {
        self.init(disposables: [disposable1, disposable2] + rest)
    }

    /// A group holding `disposables`.
    public init(disposables: [Disposable]) {
        super.init()
        for disposable in disposables { _ = insert(disposable) }
    }

    /// Whether the group was disposed.
    public var isDisposed: Bool { state.locked { $0.disposables == nil } }

    /// How many members the group holds.
    public var count: Int { state.locked { $0.disposables?.count ?? 0 } }

    /// Adds `disposable`; if the group is already disposed, disposes it instead.
    ///
    /// - Returns: A key for ``remove(for:)``, or nil when the group was disposed.
    @discardableResult
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let tracked = disposable.trackedObject
        let key: Int? = state.locked { state in
            guard state.disposables != nil else { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.disposables!.append((key, disposable))
            if let tracked { addTrackedEdge(to: tracked, label: .disposables) }
            return key
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(value: key)
    }

    /// Removes the member for `key` and disposes it.
    public func remove(for key: DisposeKey) {
        let removed: Disposable? = state.locked { state in
            guard let index = state.disposables?.firstIndex(where: { $0.key == key.value }) else { return nil }
            let removed = state.disposables!.remove(at: index).disposable
            if let tracked = removed.trackedObject { removeTrackedEdge(to: tracked, label: .disposables) }
            return removed
        }
        removed?.dispose()
    }

    /// Disposes every member, in insertion order, and drops them.
    public func dispose() {
        let members: [(key: Int, disposable: Disposable)]? = state.locked { state in
            guard let members = state.disposables else { return nil }
            state.disposables = nil
            removeTrackedEdges(label: .disposables)
            return members
        }
        guard let members else { return }
        for member in members { member.disposable.dispose() }
    }
}
