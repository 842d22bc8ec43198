import LeakGraph
import Synchronization

/// Disposes everything added to it when it is deallocated.
///
/// The usual owner of subscriptions: keep a bag in the object whose lifetime bounds them.
///
/// ```swift
/// var bag = DisposeBag()
/// subject.subscribe(onNext: { print($0) }).disposed(by: bag)
/// bag = DisposeBag()   // the subscription is disposed
/// ```
///
/// Thread safe. Each `disposed(by:)` edge records its call site when stacks are on.
public final class DisposeBag: TrackedObject {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: all mutable state is in `state`, behind its mutex.
    private struct State {
        var disposables: [Disposable] = []
        var disposed = false
    }

    private let state = Locked(State())

    /// An empty bag.
    public override init(label: String? = nil) {
        super.init(label: label)
    }

    /// A bag without a label; `DisposeBag.init` then names a `() -> DisposeBag`, as in
    /// RxSwift (for factories such as `multicast(makeSubject:)`).
    public convenience init() {
        self.init(label: nil)
    }

    /// Adds `disposable`; disposes it at once when the bag is already disposing.
    public func insert(_ disposable: Disposable) {
        insert(disposable, recordingSite: false)
    }

    fileprivate func insert(_ disposable: Disposable, recordingSite: Bool) {
        let tracked = disposable.trackedObject
        let added = state.locked { state in
            guard !state.disposed else { return false }
            state.disposables.append(disposable)
            if let tracked {
                if recordingSite {
                    addTrackedEdgeRecordingSite(to: tracked, label: .bag)
                } else {
                    addTrackedEdge(to: tracked, label: .bag)
                }
            }
            return true
        }
        if !added { disposable.dispose() }
    }

    /// Adds every disposable in `disposables`.
    public func insert(_ disposables: Disposable...) {
        insert(disposables)
    }

    /// Adds every disposable in `disposables`.
    public func insert(_ disposables: [Disposable]) {
        for disposable in disposables { insert(disposable) }
    }

    /// Adds every disposable `builder` lists.
    ///
    /// ```swift
    /// bag.insert {
    ///     names.subscribe(onNext: { print($0) })
    ///     ages.subscribe(onNext: { print($0) })
    /// }
    /// ```
    public func insert(@DisposableBuilder builder: () -> [Disposable]) {
        insert(builder())
    }

    /// A bag that already holds `disposables`.
    public convenience init(disposing disposables: Disposable...) {
        self.init(disposing: disposables)
    }

    /// A bag that already holds `disposables`.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        insert(disposables)
    }

    /// A bag that already holds the disposables `builder` lists.
    public convenience init(@DisposableBuilder builder: () -> [Disposable]) {
        self.init(disposing: builder())
    }

    /// Lists disposables, one per line, for ``insert(builder:)`` and ``init(builder:)``.
    @resultBuilder
    public struct DisposableBuilder {
        /// The listed disposables.
        public static func buildBlock(_ disposables: Disposable...) -> [Disposable] {
            disposables
        }
    }

    deinit {
        let disposables = state.locked { state in
            state.disposed = true
            let disposables = state.disposables
            state.disposables = []
            return disposables
        }
        for disposable in disposables { disposable.dispose() }
    }
}

extension Disposable {
    /// Adds this disposable to `bag`, which disposes it when deallocated.
    ///
    /// The `bag → disposable` edge records this call's stack (when stacks are on), so a report
    /// names the line that made the subscription.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self, recordingSite: true)
    }
}
