import LeakGraph
import Synchronization

/// The observer made by `subscribe(onNext:onError:onCompleted:onDisposed:)`: calls the
/// handlers, ignores everything after a terminal event, and disposes the `onDisposed` action
/// after the terminal handler.
///
/// The handlers are stored closures, so a snapshot reports what they capture (`capture`).
@usableFromInline
final class AnonymousObserver<Element>: TrackedObject, ObserverType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private let stopped = Atomic<Bool>(false)
    private let onNext: ((Element) -> Void)?
    private let onError: ((Swift.Error) -> Void)?
    private let onCompleted: (() -> Void)?
    private let disposed: Disposable?
    /// Where the subscription was made, for ``Hooks/defaultErrorHandler``: captured only when
    /// ``Hooks/recordCallStackOnError`` is on and nothing handles errors.
    private let subscriptionCallStack: [String]

    @usableFromInline
    init(
        onNext: ((Element) -> Void)?, onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?,
        disposed: Disposable?
    ) {
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.disposed = disposed
        subscriptionCallStack =
            onError == nil && Hooks.recordCallStackOnError ? Hooks.customCaptureSubscriptionCallstack() : []
        // Active until a terminal event: a subscriber a subject holds directly has no sink to
        // tell whether the subscription can still end.
        super.init(state: .active)
        if let disposed, let tracked = disposed.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
    }

    @usableFromInline
    func onNext(_ element: Element) {
        if !stopped.load(ordering: .relaxed) { onNext?(element) }
    }

    @usableFromInline
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if !stopped.load(ordering: .relaxed) { onNext?(element) }
        case .error(let error):
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            reportState(.errored)
            if let onError { onError(error) } else { Hooks.defaultErrorHandler(subscriptionCallStack, error) }
            disposed?.dispose()
        case .completed:
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            reportState(.completed)
            onCompleted?()
            disposed?.dispose()
        }
    }
}
