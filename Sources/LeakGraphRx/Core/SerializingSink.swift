import LeakGraph
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sink fed by several upstream subscriptions (merge, switch, combineLatest, zip…) that
/// delivers downstream one event at a time without holding a lock while it does.
///
/// An event arriving from another thread while one is being delivered is queued and delivered
/// by the thread already delivering, right after. An event arriving re-entrantly on the
/// delivering thread (the observer made a source emit) is delivered at once, nested, as RxSwift's
/// recursive locks do. Only the queueing allocates; a lone event takes the lock twice and
/// allocates nothing.
class SerializingSink<Observer: ObserverType>: Sink<Observer> {
    private struct Queue {
        var emitting = false
        /// The thread delivering, while `emitting`.
        var owner = pthread_self()
        var pending: [Event<Observer.Element>] = []
    }

    private enum Delivery {
        case now
        case nested
        case queued
    }

    private let queue = Locked(Queue())

    /// Delivers `event` (a terminal event also disposes the subscription), serialised with
    /// every other `serialForward`.
    final func serialForward(_ event: Event<Observer.Element>) {
        let thread = pthread_self()
        let delivery = queue.locked { queue -> Delivery in
            if queue.emitting {
                if pthread_equal(queue.owner, thread) != 0 { return .nested }
                queue.pending.append(event)
                return .queued
            }
            queue.emitting = true
            queue.owner = thread
            return .now
        }
        switch delivery {
        case .queued: return
        case .nested: return deliver(event)
        case .now: deliver(event)
        }
        while true {
            let pending = queue.locked { queue -> [Event<Observer.Element>]? in
                if queue.pending.isEmpty {
                    queue.emitting = false
                    return nil
                }
                let pending = queue.pending
                queue.pending = []
                return pending
            }
            guard let pending else { return }
            for event in pending { deliver(event) }
        }
    }

    @inline(__always)
    private func deliver(_ event: Event<Observer.Element>) {
        if case .next = event {
            forwardOn(event)
        } else {
            forwardTerminalAndDispose(event)
        }
    }
}
