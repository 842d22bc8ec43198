import LeakGraph
import Synchronization

/// The per-subscription object of an operator: receives upstream events, forwards to its
/// observer, and owns the subscription's resources through its ``SinkDisposer``.
///
/// Reports its `observer` and `cancel` references, and its state (`active`, then `completed`,
/// `errored` or `disposed`). Forwarding an event costs one atomic load and the observer's
/// `on(_:)`; nothing is allocated and the registry is not touched.
public class Sink<Observer: ObserverType>: TrackedObject, Disposable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private static var stoppedBit: Int { 1 }
    private static var disposedBit: Int { 2 }

    /// The downstream observer.
    final let observer: Observer
    /// The subscription's disposer.
    final let cancel: Cancelable
    private final let state = Atomic<Int>(0)

    /// Creates a sink forwarding to `observer`, cancelled through `cancel`.
    init(observer: Observer, cancel: Cancelable) {
        self.observer = observer
        self.cancel = cancel
        super.init(state: .active)
        // One critical section for both edges.
        addTrackedEdges(to: asTrackedObject(observer), label: .observer, and: cancel.trackedObject, label: .cancel)
    }

    /// Whether the sink was disposed.
    final var isDisposed: Bool { state.load(ordering: .relaxed) & Self.disposedBit != 0 }

    /// Whether the sink forwarded a terminal event or was disposed.
    final var isStopped: Bool { state.load(ordering: .relaxed) != 0 }

    /// Forwards `event` unless the sink is stopped; a terminal event stops it (but does not
    /// dispose it: see ``forwardTerminalAndDispose(_:)``).
    @inline(__always)
    final func forwardOn(_ event: Event<Observer.Element>) {
        if case .next = event {
            if state.load(ordering: .relaxed) == 0 { observer.on(event) }
        } else {
            forwardTerminal(event)
        }
    }

    /// Forwards an element unless the sink is stopped.
    @inline(__always)
    final func forwardNext(_ element: Observer.Element) {
        if state.load(ordering: .relaxed) == 0 { observer.onNext(element) }
    }

    /// Forwards a terminal event once and records the sink's state.
    final func forwardTerminal(_ event: Event<Observer.Element>) {
        guard state.compareExchange(expected: 0, desired: Self.stoppedBit, ordering: .acquiringAndReleasing).exchanged
        else { return }
        reportState(event.error == nil ? .completed : .errored)
        observer.on(event)
    }

    /// Forwards a terminal event once, then disposes the subscription (the usual end of a sink).
    final func forwardTerminalAndDispose(_ event: Event<Observer.Element>) {
        forwardTerminal(event)
        dispose()
    }

    /// Forwards `.error(error)` once, then disposes the subscription. Out of line, so that the
    /// `Event` it builds costs its callers' element paths no metadata lookup.
    @inline(never)
    final func forwardError(_ error: Swift.Error) {
        forwardTerminalAndDispose(.error(error))
    }

    /// Forwards `.completed` once, then disposes the subscription; out of line for the same
    /// reason as ``forwardError(_:)``.
    @inline(never)
    final func forwardCompleted() {
        forwardTerminalAndDispose(.completed)
    }

    /// Stops forwarding and disposes the subscription through the ``SinkDisposer``.
    /// Subclasses that override it call `super.dispose()`.
    public func dispose() {
        let previous = state.bitwiseOr(Self.disposedBit, ordering: .acquiringAndReleasing).oldValue
        if previous & Self.disposedBit != 0 { return }
        if previous == 0 { reportState(.disposed) }
        cancel.dispose()
    }
}
