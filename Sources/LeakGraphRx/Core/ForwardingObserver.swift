import LeakGraph

/// An observer of one of several upstream subscriptions of a sink (combineLatest, zip,
/// take(until:)): holds the sink (`parent`) and forwards each event to it through a closure
/// that captures nothing.
final class ForwardingObserver<Parent: TrackedObject, Element>: TrackedObject, ObserverType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private let parent: Parent
    private let handler: (Parent, Event<Element>) -> Void

    init(parent: Parent, handler: @escaping (Parent, Event<Element>) -> Void) {
        self.parent = parent
        self.handler = handler
        super.init()
        addTrackedEdge(to: parent, label: .parent)
    }

    func on(_ event: Event<Element>) { handler(parent, event) }
}
