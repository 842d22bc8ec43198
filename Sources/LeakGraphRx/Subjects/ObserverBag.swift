import LeakGraph
import Synchronization

/// One observer of a subject or connection, type-erased so that the bag, its copies and the
/// subject's lock state are not generic: in unspecialised generic code every value of a type
/// built from `Element` (`Array<Entry<Element>>`, `Mutex<State<Element>>`, `Event<Element>?`)
/// costs a runtime generic metadata lookup, and delivering an event must cost none.
struct ObserverEntry {
    let key: Int
    /// Delivers the value at the pointer: an `Element` when the flag is false (the observer's
    /// `onNext`), an `Event<Element>` when it is true (its `on`). Holds the observer.
    let deliver: (UnsafeRawPointer, Bool) -> Void
    /// The observer when it is tracked; `deliver` keeps it alive, so this reference must not
    /// count as a second strong one (the graph would not explain it).
    unowned(unsafe) let tracked: TrackedObject?
    /// A removed observer's place, kept until the bag compacts (see ``ObserverBag/remove(_:owner:)``).
    var isRemoved: Bool { key < 0 }

    /// The place of the removed observer `key`: delivers nothing, holds nothing.
    static func removed(key: Int) -> ObserverEntry {
        ObserverEntry(key: -1 - key, deliver: { _, _ in }, tracked: nil)
    }

    /// The entry for `observer`: one closure context, holding the observer once.
    static func make<Observer: ObserverType>(_ observer: Observer, key: Int) -> ObserverEntry {
        ObserverEntry(
            key: key,
            deliver: { pointer, isEvent in
                if isEvent {
                    deliverEvent(observer, pointer)
                } else {
                    observer.onNext(pointer.assumingMemoryBound(to: Observer.Element.self).pointee)
                }
            },
            tracked: asTrackedObject(observer))
    }

    /// Out of line: only this path needs `Event<Element>`'s metadata.
    @inline(never)
    private static func deliverEvent<Observer: ObserverType>(_ observer: Observer, _ pointer: UnsafeRawPointer) {
        observer.on(pointer.assumingMemoryBound(to: Event<Observer.Element>.self).pointee)
    }
}

/// The observers of a subject or connection, in subscription order. Copying `entries` (to
/// deliver an event outside the lock) retains one buffer and allocates nothing.
///
/// Removing is O(log n) amortised whatever the order: past 16 entries, the entry is found by
/// binary search (keys only grow, so entries stay in key order) and replaced by a place that
/// delivers nothing; the places are dropped once they are half the array. (Removing from the middle of the array
/// shifted every later entry: disposing a subject's 10,000 subscriptions in order cost twice as
/// much per subscription as disposing 1,000.)
struct ObserverBag {
    typealias Entries = ContiguousArray<ObserverEntry>

    private(set) var entries: Entries = []
    private var nextKey = 0
    /// Removed places still in `entries`.
    private var removedCount = 0

    var isEmpty: Bool { entries.count == removedCount }
    var count: Int { entries.count - removedCount }

    /// Adds `observer` and reports the `observers` edge from `owner`.
    mutating func insert<Observer: ObserverType>(_ observer: Observer, owner: TrackedObject) -> Int {
        let key = nextKey
        nextKey += 1
        let entry = ObserverEntry.make(observer, key: key)
        entries.append(entry)
        // `deliver` holds the observer: one reference.
        if let tracked = entry.tracked { owner.addTrackedEdge(to: tracked, label: .observers) }
        return key
    }

    /// Removes the observer for `key` and its edge; returns it so the caller releases it after
    /// unlocking.
    mutating func remove(_ key: Int, owner: TrackedObject) -> ObserverEntry? {
        // Few observers (nearly always one): a scan and a short shift beat the bookkeeping.
        if entries.count <= 16 {
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            if let tracked = entry.tracked { owner.removeTrackedEdge(to: tracked, label: .observers) }
            return entry
        }
        // Entries are in key order; a removed place keeps its key as `-1 - key`.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let entryKey = entries[middle].key < 0 ? -1 - entries[middle].key : entries[middle].key
            if entryKey < key { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low].key == key else { return nil }
        let entry = entries[low]
        entries[low] = .removed(key: key)
        removedCount += 1
        if removedCount > 16 && removedCount * 2 > entries.count {
            entries.removeAll { $0.isRemoved }
            removedCount = 0
        }
        if let tracked = entry.tracked { owner.removeTrackedEdge(to: tracked, label: .observers) }
        return entry
    }

    /// Removes every observer and edge; returns them so the caller delivers the terminal event
    /// and releases them after unlocking.
    mutating func removeAll(owner: TrackedObject) -> Entries {
        let all = entries
        let hadObservers = !isEmpty
        entries = []
        removedCount = 0
        if hadObservers { owner.removeTrackedEdges(label: .observers) }
        return all
    }

    /// Delivers `element` to every entry of `entries`.
    @inline(__always)
    static func dispatchNext<Element>(_ entries: Entries, _ element: Element) {
        if entries.isEmpty { return }
        withUnsafePointer(to: element) { pointer in
            let raw = UnsafeRawPointer(pointer)
            for entry in entries { entry.deliver(raw, false) }
        }
    }

    /// Delivers `event` to every entry of `entries`.
    static func dispatch<Element>(_ entries: Entries, _ event: Event<Element>) {
        if entries.isEmpty { return }
        withUnsafePointer(to: event) { pointer in
            let raw = UnsafeRawPointer(pointer)
            for entry in entries { entry.deliver(raw, true) }
        }
    }
}

/// Something that can remove an observer by key (a subject or connection).
protocol UnsubscribeType: AnyObject {
    func unsubscribe(key: Int)
}

/// The disposable a subject returns to a subscriber: holds the subject (`subject` edge) until
/// disposed, then removes the observer from it.
final class SubjectSubscription: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: `owner` is written in init and cleared once, by the thread that won
    // the atomic `disposed` exchange.
    private let disposed = Atomic<Bool>(false)
    private var owner: (UnsubscribeType & TrackedObject)?
    private let key: Int

    init(owner: UnsubscribeType & TrackedObject, key: Int) {
        self.owner = owner
        self.key = key
        super.init()
        addTrackedEdge(to: owner, label: .subject)
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let owner = self.owner else { return }
        removeTrackedEdge(to: owner, label: .subject)
        self.owner = nil
        owner.unsubscribe(key: key)
    }
}
