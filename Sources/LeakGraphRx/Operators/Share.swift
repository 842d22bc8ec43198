import LeakGraph

/// How long ``ObservableType/share(replay:scope:)`` keeps its subject.
public enum SubjectLifetimeScope: Sendable {
    /// While at least one subscriber is connected: the last one leaving disconnects the source
    /// and drops the subject (and its replay buffer); the next subscriber starts afresh.
    case whileConnected
    /// Forever: one subject for the operator's lifetime, kept across reconnections.
    case forever
}

extension ObservableType {
    /// Shares one subscription to the source among all subscribers, replaying the last
    /// `replay` elements to new ones.
    ///
    /// With `.forever`, the subject outlives its subscribers; a subscription that is dropped
    /// without disposal over a source that never completes is a leaked cycle.
    ///
    /// ```swift
    /// let shared = expensive.share(replay: 1)
    /// ```
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        switch (replay, scope) {
        case (_, .whileConnected):
            return ShareWhileConnected(source: asObservable(), replay: replay)
        case (0, .forever):
            // One subject for every connection: once the source has ended, later subscribers
            // get its terminal event (and the replayed elements) instead of a new subscription.
            return multicast(PublishSubject<Element>()).refCount()
        case (_, .forever):
            return multicast(ReplaySubject<Element>.create(bufferSize: replay)).refCount()
        }
    }
}
