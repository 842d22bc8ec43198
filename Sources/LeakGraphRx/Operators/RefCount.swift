import LeakGraph
import Synchronization

extension ConnectableObservable {
    /// Connects when the first subscriber arrives and disconnects when the last one leaves.
    public func refCount() -> Observable<Element> {
        RefCount(source: self)
    }
}

private final class RefCountSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let parent: RefCount<Element>
    /// The connection this subscriber counted in (``RefCount``'s generation when it subscribed);
    /// -1 until then.
    private let generation = Atomic<Int>(-1)

    init(parent: RefCount<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: parent, label: .parent)
    }

    func run() -> Disposable {
        let subscription = parent.source.subscribe(self)
        // Ended while subscribing (the subject had already terminated): counted nowhere, and
        // nothing connects.
        guard let counted = parent.acquire(unlessEnded: { isDisposed }) else { return Disposables.create() }
        generation.store(counted, ordering: .releasing)
        return Disposables.create(with: { [parent] in
            subscription.dispose()
            parent.release(generation: counted)
        })
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .error, .completed:
            // The connection ends before its subscribers hear of it: one that subscribes again
            // on completion starts a new connection.
            parent.end(generation: generation.load(ordering: .acquiring))
            forwardTerminalAndDispose(event)
        }
    }
}

private final class RefCount<Element>: Producer<Element> {
    private struct State {
        var count = 0
        /// Which connection the counted subscribers share: a terminal event starts a new one, and
        /// a subscriber of an ended connection no longer counts.
        var generation = 0
        var connection: Disposable?
    }

    let source: ConnectableObservable<Element>
    private let state = Locked(State())

    init(source: ConnectableObservable<Element>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    /// Counts a subscriber (the first one connects); returns the generation it counted in, or
    /// nil when `ended` says it has already ended.
    func acquire(unlessEnded ended: () -> Bool) -> Int? {
        let counted = state.locked { state -> (generation: Int, connects: Bool)? in
            if ended() { return nil }
            state.count += 1
            // A connection kept from a subscriber that left while connecting is used again.
            return (state.generation, state.count == 1 && state.connection == nil)
        }
        guard let counted else { return nil }
        guard counted.connects else { return counted.generation }
        // Connected outside the lock: the source may send its events (and end) right away. A
        // subscriber that leaves while this connects (take(1) of an element sent at once) finds
        // no connection to drop: it is kept, as RxSwift keeps it, so that a subscriber that
        // subscribed to its subject meanwhile is still fed (dropping it left that one on a
        // subject no connection would ever feed).
        let connection = source.connect()
        let disposeNow = state.locked { state -> Bool in
            guard state.generation == counted.generation, state.connection == nil else { return true }
            state.connection = connection
            if let tracked = connection.trackedObject { addTrackedEdge(to: tracked, label: .connection) }
            return false
        }
        if disposeNow { connection.dispose() }
        return counted.generation
    }

    /// Uncounts a subscriber of `generation`; the last one disconnects. A subscriber of an ended
    /// connection counts for nothing.
    func release(generation: Int) {
        let connection = state.locked { state -> Disposable? in
            guard state.generation == generation, state.count > 0 else { return nil }
            state.count -= 1
            guard state.count == 0 else { return nil }
            return takeConnection(&state)
        }
        connection?.dispose()
    }

    /// Ends the connection of `generation` (its source terminated): no subscriber counts any
    /// more, and the next one connects again.
    func end(generation: Int) {
        let connection = state.locked { state -> Disposable? in
            guard state.generation == generation else { return nil }
            state.count = 0
            state.generation &+= 1
            return takeConnection(&state)
        }
        connection?.dispose()
    }

    private func takeConnection(_ state: inout State) -> Disposable? {
        guard let connection = state.connection else { return nil }
        state.connection = nil
        if let tracked = connection.trackedObject { removeTrackedEdge(to: tracked, label: .connection) }
        return connection
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = RefCountSink(parent: self, observer: observer, cancel: cancel)
        return (sink, sink.run())
    }
}
