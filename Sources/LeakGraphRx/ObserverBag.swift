import LeakGraph
import Synchronization

/// The observers of a subject or connection, in subscription order. Copying it (to deliver an
/// event outside the lock) retains one buffer and allocates nothing.
struct ObserverBag<Element> {
    struct Entry {
        let key: Int
        let on: (Event<Element>) -> Void
        /// The observer's element fast path (no `Event` built).
        let next: (Element) -> Void
        /// The observer when it is tracked; `on` keeps it alive, so this reference must not
        /// count as a second strong one (the graph would not explain it).
        unowned(unsafe) let tracked: TrackedObject?
    }

    private(set) var entries: [Entry] = []
    private var nextKey = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// Adds `observer` and reports the `observers` edge from `owner`.
    mutating func insert<Observer: ObserverType>(_ observer: Observer, owner: TrackedObject) -> Int
    where Observer.Element == Element {
        let key = nextKey
        nextKey += 1
        let tracked = observer as? TrackedObject
        entries.append(Entry(key: key, on: observer.on, next: observer.onNext, tracked: tracked))
        if let tracked {
            // `on` and `next` each hold the observer: two references.
            owner.addTrackedEdge(to: tracked, label: .observers)
            owner.addTrackedEdge(to: tracked, label: .observers)
        }
        return key
    }

    /// Removes the observer for `key` and its edge; returns it so the caller releases it after
    /// unlocking.
    mutating func remove(_ key: Int, owner: TrackedObject) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = entries.remove(at: index)
        if let tracked = entry.tracked {
            owner.removeTrackedEdge(to: tracked, label: .observers)
            owner.removeTrackedEdge(to: tracked, label: .observers)
        }
        return entry
    }

    /// Removes every observer and edge; returns them so the caller delivers the terminal event
    /// and releases them after unlocking.
    mutating func removeAll(owner: TrackedObject) -> [Entry] {
        let all = entries
        entries = []
        if !all.isEmpty { owner.removeTrackedEdges(label: .observers) }
        return all
    }

    /// Delivers `element` to every entry of `entries`.
    @inline(__always)
    static func dispatchNext(_ entries: [Entry], _ element: Element) {
        for entry in entries { entry.next(element) }
    }

    /// Delivers `event` to every entry of `entries`.
    @inline(__always)
    static func dispatch(_ entries: [Entry], _ event: Event<Element>) {
        for entry in entries { entry.on(event) }
    }
}

/// Something that can remove an observer by key (a subject or connection).
protocol UnsubscribeType: AnyObject {
    func unsubscribe(key: Int)
}

/// The disposable a subject returns to a subscriber: holds the subject (`subject` edge) until
/// disposed, then removes the observer from it.
final class SubjectSubscription: TrackedObject, Cancelable, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `state`, behind its mutex.
    private struct State: @unchecked Sendable {  // only accessed under `state`'s mutex
        var owner: (UnsubscribeType & TrackedObject)?
    }

    private let state: Mutex<State>
    private let key: Int

    init(owner: UnsubscribeType & TrackedObject, key: Int) {
        self.state = Mutex(State(owner: owner))
        self.key = key
        super.init()
        addTrackedEdge(to: owner, label: .subject)
    }

    var isDisposed: Bool { state.locked { $0.owner == nil } }

    func dispose() {
        let owner = state.locked { state in
            let owner = state.owner
            state.owner = nil
            if let owner { removeTrackedEdge(to: owner, label: .subject) }
            return owner
        }
        owner?.unsubscribe(key: key)
    }
}
