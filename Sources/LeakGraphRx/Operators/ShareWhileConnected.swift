import LeakGraph

/// `share(replay:scope: .whileConnected)`: one connection to the source while anyone
/// subscribes. Joining a connection and connecting are one step under one lock, so a subscriber
/// can never join a connection that is being dropped and wait on it for ever (multicasting
/// through a subject and a reference count could: a subscriber attached to the subject of a
/// connection that ended, while the next subscriber connected a new subject). The elements kept
/// for replay are sent after the lock is released.
final class ShareWhileConnected<Element>: Observable<Element> {
    private let source: Observable<Element>
    private let replay: Int
    private let current = Locked<ShareConnection<Element>?>(nil)

    init(source: Observable<Element>, replay: Int) {
        self.source = source
        self.replay = max(0, replay)
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        // Joined under this lock: a connection is forgotten here before it stops taking observers.
        let (connection, key, kept, isNew) = current.locked {
            current -> (ShareConnection<Element>, Int, [Element], Bool) in
            if let connection = current {
                let (key, kept) = connection.join(observer)
                return (connection, key, kept, false)
            }
            let connection = ShareConnection(parent: self, replay: self.replay)
            current = connection
            addTrackedEdge(to: connection, label: .connection)
            let (key, _) = connection.join(observer)
            return (connection, key, [], true)
        }
        for element in kept { observer.on(.next(element)) }
        let subscription = SubjectSubscription(owner: connection, key: key)
        if isNew { connection.connect(to: source) }
        return subscription
    }

    /// Runs `body` under the lock that guards which connection is current, and forgets
    /// `connection` if `body` says it is done (its last observer left, or its source ended): the
    /// next subscriber connects anew. One step, so nobody joins a connection being dropped.
    func retire<Result>(_ connection: ShareConnection<Element>, if body: () -> (done: Bool, result: Result)) -> Result {
        current.locked { current in
            let (done, result) = body()
            if done, current === connection {
                current = nil
                removeTrackedEdge(to: connection, label: .connection)
            }
            return result
        }
    }
}

/// One connection of ``ShareWhileConnected``: its observers, the elements kept for replay, and
/// the source's subscription.
final class ShareConnection<Element>: TrackedObject, ObserverType, UnsubscribeType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private struct State {
        var observers = ObserverBag()
        var latest: [Element] = []
        var stopped = false
    }

    private weak var parent: ShareWhileConnected<Element>?
    private let replay: Int
    private let state = Locked(State())
    private let subscription = SingleAssignmentDisposable()

    init(parent: ShareWhileConnected<Element>, replay: Int) {
        self.parent = parent
        self.replay = replay
        super.init()
        addTrackedEdge(to: subscription, label: .subscription)
    }

    /// Adds `observer` (under the parent's lock); returns its key and the elements to replay.
    func join<Observer: ObserverType>(_ observer: Observer) -> (Int, [Element]) where Observer.Element == Element {
        state.locked { state in (state.observers.insert(observer, owner: self), state.latest) }
    }

    func connect(to source: Observable<Element>) {
        subscription.setDisposable(source.subscribe(self))
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // The element replay no longer keeps is released after unlocking (its deinit may
            // re-enter).
            let (observers, dropped) = state.locked { state -> (ObserverBag.Entries, Element?) in
                if state.stopped { return ([], nil) }
                var dropped: Element?
                if replay > 0 {
                    if state.latest.count == replay { dropped = state.latest.removeFirst() }
                    state.latest.append(element)
                }
                return (state.observers.entries, dropped)
            }
            _ = dropped
            ObserverBag.dispatchNext(observers, element)
        case .error, .completed:
            // Forgotten first (under the parent's lock, so no subscriber joins it meanwhile):
            // a subscriber that subscribes again on this event gets a new connection.
            let taken = parent?.retire(self, if: { (true, stop()) }) ?? stop()
            ObserverBag.dispatch(taken.observers, event)
            subscription.dispose()
        }
    }

    /// Stops taking observers and events; returns what it held, for the caller to release once
    /// every lock is let go (an observer's or an element's deinit may re-enter).
    private func stop() -> (observers: ObserverBag.Entries, replay: [Element]) {
        state.locked { state in
            if state.stopped { return ([], []) }
            state.stopped = true
            let replay = state.latest
            state.latest = []
            return (state.observers.removeAll(owner: self), replay)
        }
    }

    func unsubscribe(key: Int) {
        // Under the parent's lock: the last observer's leaving and the connection's being
        // forgotten are one step, so nobody joins a connection that is being dropped.
        // What leaves (the observer, the replayed elements) is released after every lock.
        let leave = { [self] () -> (done: Bool, result: (last: Bool, removed: ObserverEntry?, replay: [Element])) in
            let left = state.locked { state -> (last: Bool, removed: ObserverEntry?, replay: [Element]) in
                let removed = state.observers.remove(key, owner: self)
                guard state.observers.isEmpty, !state.stopped else { return (false, removed, []) }
                state.stopped = true
                let replay = state.latest
                state.latest = []
                return (true, removed, replay)
            }
            return (left.last, left)
        }
        let left = parent?.retire(self, if: leave) ?? leave().result
        if left.last { subscription.dispose() }
    }
}
