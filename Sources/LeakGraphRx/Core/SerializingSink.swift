import LeakGraph
import Synchronization

/// A sink fed by several upstream subscriptions (merge, switch, combineLatest, zip…) that
/// delivers downstream one event at a time without holding a lock while it does.
///
/// An event arriving while another is being delivered (from another thread, or re-entrantly
/// from inside the observer) is queued and delivered by the thread already delivering, right
/// after. Only that queueing allocates; a lone event takes the lock twice and allocates nothing.
class SerializingSink<Observer: ObserverType>: Sink<Observer> {
    private struct Queue {
        var emitting = false
        var pending: [Event<Observer.Element>] = []
    }

    private let queue = Locked(Queue())

    /// Delivers `event` (a terminal event also disposes the subscription), serialised with
    /// every other `serialForward`.
    final func serialForward(_ event: Event<Observer.Element>) {
        let deliverNow = queue.locked { queue in
            if queue.emitting {
                queue.pending.append(event)
                return false
            }
            queue.emitting = true
            return true
        }
        guard deliverNow else { return }
        deliver(event)
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
