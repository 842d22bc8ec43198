import LeakGraph

extension Publishers {
    /// A publisher that puts a tracked node between its upstream and each subscriber: the
    /// node reports its strong references to the downstream subscriber (`subscriber`) and to the
    /// upstream subscription (`subscription`), so a pipeline that is never cancelled shows its
    /// subscriber ⇄ subscription cycle in the graph.
    public struct Tracked<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher observed.
        public let upstream: Upstream
        /// Label of each tracked node.
        public let label: String?

        /// Creates the publisher.
        public init(upstream: Upstream, label: String?) {
            self.upstream = upstream
            self.label = label
        }

        /// Subscribes through a new tracked node.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(TrackedSubscription(downstream: subscriber, label: label))
        }
    }
}

extension Publisher {
    /// Inserts a LeakGraph-tracked node into the pipeline (see ``Publishers/Tracked``).
    ///
    /// ```swift
    /// subject.map { $0 * 2 }.tracked(label: "doubled").sink { … }
    /// ```
    public func tracked(label: String? = nil) -> Publishers.Tracked<Self> {
        Publishers.Tracked(upstream: self, label: label)
    }
}

/// The node between upstream and downstream: a subscriber to upstream and the subscription
/// downstream sees. Holds both strongly until cancel or completion.
final class TrackedSubscription<Input, Failure: Error, Downstream: Subscriber>: TrackedObject, Subscriber, Subscription
where Downstream.Input == Input, Downstream.Failure == Failure {
    // Thread-safe: both references are only touched under `state`.
    private struct State {
        var downstream: Downstream?
        var upstream: Subscription?
    }

    private let state: Locked<State>
    let combineIdentifier = CombineIdentifier()

    init(downstream: Downstream, label: String?) {
        state = Locked(State(downstream: downstream, upstream: nil))
        super.init(label: label)
        addReference(from: self, to: downstream, label: .subscriber)
    }

    func receive(subscription: Subscription) {
        let downstream: Downstream? = state.withLock { state in
            guard state.upstream == nil, let downstream = state.downstream else { return nil }
            state.upstream = subscription
            return downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        addReference(from: self, to: subscription, label: .subscription)
        reportState(.active)
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = state.withLock({ $0.downstream }) else { return .none }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (downstream, upstream) = takeAll()
        guard let downstream else { return }
        forget(downstream: downstream, upstream: upstream)
        if case .failure = completion { reportState(.errored) } else { reportState(.completed) }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.upstream }?.request(demand)
    }

    func cancel() {
        let (downstream, upstream) = takeAll()
        guard downstream != nil || upstream != nil else { return }
        forget(downstream: downstream, upstream: upstream)
        reportState(.disposed)
        upstream?.cancel()
        withExtendedLifetime(downstream) {}
    }

    private func takeAll() -> (Downstream?, Subscription?) {
        // Returned, not dropped under the lock: releasing them may run arbitrary deinits.
        state.withLock { state in
            defer {
                state.downstream = nil
                state.upstream = nil
            }
            return (state.downstream, state.upstream)
        }
    }

    private func forget(downstream: Downstream?, upstream: Subscription?) {
        if let downstream { removeReference(from: self, to: downstream, label: .subscriber) }
        if let upstream { removeReference(from: self, to: upstream, label: .subscription) }
    }
}
