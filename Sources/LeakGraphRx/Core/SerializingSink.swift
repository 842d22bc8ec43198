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
    /// Whether events wait in the sink's `pending` queue (read on every delivery's way out, so
    /// that the queue itself is touched only when something waits).
    var hasPending = false
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
        switch beginDelivery(orQueue: { enqueue(event) }) {
        case .queued: return
        case .nested: return deliver(event)
        case .now: deliver(event)
        }
        endDelivery()
    }

    /// Delivers one element, as `serialForward(.next(element))` does, without building an
    /// `Event` (a generic metadata lookup in unspecialised code) unless it has to wait.
    final func serialForwardNext(_ element: Observer.Element) {
        switch beginDelivery(orQueue: { enqueueNext(element) }) {
        case .queued: return
        case .nested: return forwardNext(element)
        case .now: forwardNext(element)
        }
        endDelivery()
    }

    /// `serialForward(.error(error))`, out of line: its `Event` stays off the callers' paths.
    @inline(never)
    final func serialForwardError(_ error: Swift.Error) {
        serialForward(.error(error))
    }

    /// `serialForward(.completed)`, out of line: its `Event` stays off the callers' paths.
    @inline(never)
    final func serialForwardCompleted() {
        serialForward(.completed)
    }

    /// Takes the delivery over (`.now`), delivers nested on the thread already delivering, or
    /// queues with `enqueue` (under the lock) for the delivering thread.
    @inline(__always)
    private func beginDelivery(orQueue enqueue: () -> Void) -> SerialDelivery {
        let thread = pthread_self()
        return gate.locked { gate -> SerialDelivery in
            if gate.emitting {
                if pthread_equal(gate.owner, thread) != 0 { return .nested }
                enqueue()
                gate.hasPending = true
                return .queued
            }
            gate.emitting = true
            gate.owner = thread
            return .now
        }
    }

    /// Delivers what other threads queued meanwhile, then gives the delivery up.
    @inline(__always)
    private func endDelivery() {
        while gate.locked({ gate -> Bool in
            if gate.hasPending { return true }
            gate.emitting = false
            return false
        }) {
            deliverPending()
        }
    }

    @inline(never)
    private func deliverPending() {
        let waiting = gate.locked { gate -> [Event<Observer.Element>] in
            gate.hasPending = false
            defer { pending = nil }
            return pending ?? []
        }
        for event in waiting { deliver(event) }
    }

    /// Queues `event` (under `gate`'s lock). Out of line: only this path needs the array.
    @inline(never)
    private func enqueue(_ event: Event<Observer.Element>) {
        if pending == nil { pending = [] }
        pending!.append(event)
    }

    @inline(never)
    private func enqueueNext(_ element: Observer.Element) {
        enqueue(.next(element))
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
