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

    init(parent: RefCount<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: parent, label: .parent)
    }

    func run() -> Disposable {
        let subscription = parent.source.subscribe(self)
        parent.acquire()
        return Disposables.create(with: { [parent] in
            subscription.dispose()
            parent.release()
        })
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .error, .completed: forwardTerminalAndDispose(event)
        }
    }
}

private final class RefCount<Element>: Producer<Element> {
    private struct State {
        var count = 0
        var connection: Disposable?
    }

    let source: ConnectableObservable<Element>
    private let state = Locked(State())

    init(source: ConnectableObservable<Element>) {
        self.source = source
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    /// Counts a subscriber; the first one connects.
    func acquire() {
        let connect = state.locked { state in
            state.count += 1
            return state.count == 1
        }
        guard connect else { return }
        let connection = source.connect()
        let disposeNow = state.locked { state -> Bool in
            guard state.count > 0 else { return true }
            state.connection = connection
            if let tracked = connection.trackedObject { addTrackedEdge(to: tracked, label: .connection) }
            return false
        }
        if disposeNow { connection.dispose() }
    }

    /// Uncounts a subscriber; the last one disconnects.
    func release() {
        let connection = state.locked { state -> Disposable? in
            state.count -= 1
            guard state.count == 0, let connection = state.connection else { return nil }
            state.connection = nil
            if let tracked = connection.trackedObject { removeTrackedEdge(to: tracked, label: .connection) }
            return connection
        }
        connection?.dispose()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = RefCountSink(parent: self, observer: observer, cancel: cancel)
        return (sink, sink.run())
    }
}
