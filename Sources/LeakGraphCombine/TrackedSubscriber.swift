import LeakGraph

/// A `sink`-like subscriber that LeakGraph tracks: it reports its strong reference to its
/// subscription (`subscription`) and the closures it keeps are scanned for captures.
///
/// Attached with `receive(subscriber:)` and never cancelled, it and its subscription hold each
/// other for ever, and LeakGraph reports the pair as a leaked cycle; `cancel()` or a completion
/// breaks it.
///
/// ```swift
/// let subscriber = TrackedSubscriber<Int, Never>(label: "prices") { print($0) }
/// publisher.tracked(label: "prices").receive(subscriber: subscriber)
/// ```
public final class TrackedSubscriber<Input, Failure: Error>: TrackedObject, Subscriber, Cancellable {
    // Thread-safe as Combine's `Sink`: `subscription` is only touched under `state`; the two
    // handlers are immutable and run on whichever thread the publisher delivers on.
    private let receiveValue: (Input) -> Void
    private let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
    private let state = Locked<Subscription?>(nil)
    private let demand: Subscribers.Demand

    /// The subscriber's identity for Combine.
    public let combineIdentifier = CombineIdentifier()

    /// Creates a subscriber.
    ///
    /// - Parameters:
    ///   - label: Shown in reports.
    ///   - demand: What it requests on subscription (default unlimited).
    ///   - receiveCompletion: Called once on completion.
    ///   - receiveValue: Called for each value.
    public init(
        label: String? = nil, demand: Subscribers.Demand = .unlimited,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in },
        receiveValue: @escaping (Input) -> Void
    ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
        self.demand = demand
        super.init(label: label)
    }

    /// Keeps the subscription (one only) and requests the initial demand.
    public func receive(subscription: Subscription) {
        let accepted = state.withLock { current -> Bool in
            guard current == nil else { return false }
            current = subscription
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        addReference(from: self, to: subscription, label: .subscription)
        reportState(.active)
        subscription.request(demand)
    }

    /// Delivers a value.
    public func receive(_ input: Input) -> Subscribers.Demand {
        receiveValue(input)
        return .none
    }

    /// Delivers the completion and lets go of the subscription.
    public func receive(completion: Subscribers.Completion<Failure>) {
        guard let subscription = takeSubscription() else { return }
        removeReference(from: self, to: subscription, label: .subscription)
        if case .failure = completion { reportState(.errored) } else { reportState(.completed) }
        receiveCompletion(completion)
        withExtendedLifetime(subscription) {}
    }

    /// Cancels the subscription and lets go of it.
    public func cancel() {
        guard let subscription = takeSubscription() else { return }
        removeReference(from: self, to: subscription, label: .subscription)
        reportState(.disposed)
        subscription.cancel()
    }

    private func takeSubscription() -> Subscription? {
        // Returned, not dropped under the lock: releasing it may run arbitrary deinits.
        state.withLock { current in
            defer { current = nil }
            return current
        }
    }
}

extension Publisher {
    /// Attaches a ``TrackedSubscriber`` and returns an `AnyCancellable` for it: like `sink`, but
    /// the subscriber and its references are in the LeakGraph.
    public func trackedSink(
        label: String? = nil, receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in },
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let subscriber = TrackedSubscriber<Output, Failure>(
            label: label, receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        receive(subscriber: subscriber)
        return AnyCancellable(subscriber)
    }
}
