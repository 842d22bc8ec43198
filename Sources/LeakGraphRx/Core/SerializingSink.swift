import LeakGraph
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Non-generic, at file scope: types nested in the generic class below were generic themselves,
// and unspecialised code looked up their metadata (and `Locked<Queue>`'s) on every event.
private struct SerialGate {
    var emitting = false
    /// The thread delivering, while `emitting`.
    var owner = pthread_self()
}

private enum SerialDelivery {
    case now
    case nested
    case queued
}

/// A sink fed by several upstream subscriptions (merge, switch, combineLatest, zip…) that
/// delivers downstream one event at a time without holding a lock while it does.
///
/// An event arriving from another thread while one is being delivered is queued and delivered
/// by the thread already delivering, right after. An event arriving re-entrantly on the
/// delivering thread (the observer made a source emit) is delivered at once, nested, as RxSwift's
/// recursive locks do. Only the queueing allocates; a lone event takes the lock twice and
/// allocates nothing.
class SerializingSink<Observer: ObserverType>: Sink<Observer> {
    private let gate = Locked(SerialGate())
    /// Events from other threads waiting while one is delivered; nil while none wait (most of
    /// the time: an empty array of a generic element would cost a metadata lookup per sink).
    /// Read and written only under `gate`'s lock, which already serialises the accesses: its
    /// exclusivity is not checked at run time.
    @exclusivity(unchecked) private var pending: [Event<Observer.Element>]?

    /// Delivers `event` (a terminal event also disposes the subscription), serialised with
    /// every other `serialForward`.
    final func serialForward(_ event: Event<Observer.Element>) {
        let thread = pthread_self()
        let delivery = gate.locked { gate -> SerialDelivery in
            if gate.emitting {
                if pthread_equal(gate.owner, thread) != 0 { return .nested }
                enqueue(event)
                return .queued
            }
            gate.emitting = true
            gate.owner = thread
            return .now
        }
        switch delivery {
        case .queued: return
        case .nested: return deliver(event)
        case .now: deliver(event)
        }
        while true {
            let waiting = gate.locked { gate -> [Event<Observer.Element>]? in
                guard let waiting = pending else {
                    gate.emitting = false
                    return nil
                }
                pending = nil
                return waiting
            }
            guard let waiting else { return }
            for event in waiting { deliver(event) }
        }
    }

    /// Queues `event` (under `gate`'s lock). Out of line: only this path needs the array.
    @inline(never)
    private func enqueue(_ event: Event<Observer.Element>) {
        if pending == nil { pending = [] }
        pending!.append(event)
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
