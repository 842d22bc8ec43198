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

    @usableFromInline
    init(
        onNext: ((Element) -> Void)?, onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?,
        disposed: Disposable?
    ) {
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.disposed = disposed
        super.init()
        if let tracked = disposed?.trackedObject { addTrackedEdge(to: tracked, label: .disposables) }
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
            if let onError { onError(error) } else { Hooks.defaultErrorHandler(error) }
            disposed?.dispose()
        case .completed:
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            onCompleted?()
            disposed?.dispose()
        }
    }
}

/// Global hooks.
public enum Hooks {
    /// The type of ``defaultErrorHandler``.
    public typealias DefaultErrorHandler = (Swift.Error) -> Void

    /// The handler, boxed so that the lock's state is `Sendable`.
    // @unchecked Sendable: the box is immutable; the closure it holds is called on whichever
    // thread delivers an unhandled error, as in RxSwift, so it is the handler's own business to
    // be thread-safe (the default only prints).
    private struct HandlerBox: @unchecked Sendable {
        let handler: DefaultErrorHandler
    }

    private static let errorHandler = Locked(
        HandlerBox { error in
            print("Unhandled error happened: \(error)")
        })

    /// Called for an error no `onError` handler received (default: prints it). Reading and
    /// replacing it are safe from any thread; the handler itself runs on the thread that
    /// delivers the error.
    ///
    /// ```swift
    /// Hooks.defaultErrorHandler = { error in Issue.record("unhandled \(error)") }
    /// ```
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { errorHandler.withLock { $0.handler } }
        set {
            // The old handler is released after unlocking: its captures may run arbitrary deinits.
            let old = errorHandler.withLock { box in
                defer { box = HandlerBox(handler: newValue) }
                return box
            }
            _ = old
        }
    }
}
