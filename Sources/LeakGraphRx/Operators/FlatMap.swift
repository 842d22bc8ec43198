import LeakGraph
import Synchronization

extension ObservableType {
    /// Maps each element to an observable and merges their elements; completes when the source
    /// and every inner observable completed; the first error terminates.
    ///
    /// ```swift
    /// Observable.of(1, 2).flatMap { Observable.of($0, $0 * 10) }.subscribe(onNext: { print($0) })
    /// // 1, 10, 2, 20
    /// ```
    ///
    /// The selector is kept by the operator and by each subscription: a selector that captures
    /// an object storing the operator makes a cycle (shown through a `capture` edge).
    public func flatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        FlatMap(source: asObservable(), mode: .all) { try selector($0).asObservable() }
    }

    /// Like ``flatMap(_:)``, but an element that arrives while an inner sequence is still
    /// running is dropped: one inner sequence at a time, the first one wins.
    ///
    /// ```swift
    /// taps.flatMapFirst { _ in api.submit() }.subscribe(onNext: { print($0) })   // no double submit
    /// ```
    public func flatMapFirst<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        FlatMap(source: asObservable(), mode: .firstOnly) { try selector($0).asObservable() }
    }

    /// Maps each element to a sequence and emits their elements one sequence after another:
    /// an element that arrives while a sequence runs waits (mapped only when its turn comes).
    ///
    /// ```swift
    /// ids.concatMap { api.load($0) }.subscribe(onNext: { print($0) })   // in order
    /// ```
    public func concatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        FlatMap(source: asObservable(), mode: .limited(1)) { try selector($0).asObservable() }
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// Merges the elements of the inner observables this observable emits.
    public func merge() -> Observable<Element.Element> {
        FlatMap(source: asObservable(), mode: .all) { $0.asObservable() }
    }

    /// Merges the inner sequences, at most `maxConcurrent` at a time: the others wait for one to
    /// complete. `maxConcurrent` must be at least 1.
    ///
    /// ```swift
    /// downloads.merge(maxConcurrent: 2).subscribe(onNext: { print($0) })
    /// ```
    public func merge(maxConcurrent: Int) -> Observable<Element.Element> {
        precondition(maxConcurrent > 0, "merge(maxConcurrent:): maxConcurrent must be at least 1")
        return FlatMap(source: asObservable(), mode: .limited(maxConcurrent)) { $0.asObservable() }
    }

    /// The inner sequences one after another, each subscribed when the previous completes.
    public func concat() -> Observable<Element.Element> {
        merge(maxConcurrent: 1)
    }
}

extension ObservableType {
    /// Merges the elements of `sources`; completes when all completed.
    ///
    /// ```swift
    /// Observable.merge(Observable.of(1), Observable.of(2)).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        // Every source is subscribed to while the merge is, in a loop, as RxSwift's does: two
        // synchronous sources then interleave on the trampoline (1, 3, 2, 4).
        Observable.from(sources, scheduler: SynchronousLoop()).merge()
    }

    /// Merges the elements of `sources`; completes when all completed.
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        merge(Array(sources))
    }

    /// Emits the elements of all of `sources` as they come.
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable.from(sources, scheduler: SynchronousLoop()).merge()
    }
}

/// The observer of one inner subscription of a flatMap: forwards to its parent sink (`parent`
/// edge).
private final class MergeSinkIter<SourceElement, Observer: ObserverType>: TrackedObject, ObserverType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    typealias Element = Observer.Element
    private let parent: MergeSink<SourceElement, Observer>
    private let key: Int

    init(parent: MergeSink<SourceElement, Observer>, key: Int) {
        self.parent = parent
        self.key = key
        super.init()
        addTrackedEdge(to: parent, label: .parent)
    }

    // Elements and completion come through `onNext` / `onCompleted` where the inner sequence
    // sends them so (no `Event` built: a generic metadata lookup each in unspecialised code).
    // They are delivered outside the allocation site the inner subscription was made in: what
    // the handlers downstream allocate is theirs.

    func onNext(_ element: Element) {
        LeakGraph.outsideAllocationSite { parent.serialForwardNext(element) }
    }

    func onCompleted() {
        LeakGraph.outsideAllocationSite { parent.innerCompleted(key) }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): LeakGraph.outsideAllocationSite { parent.serialForwardError(error) }
        case .completed: onCompleted()
        }
    }
}

/// How many inner sequences a merge runs at once.
enum MergeMode {
    /// Every one (`flatMap`, `merge`).
    case all
    /// At most this many; the others wait, in order (`merge(maxConcurrent:)`, `concatMap`).
    case limited(Int)
    /// One; elements arriving while it runs are dropped (`flatMapFirst`).
    case firstOnly
}

// At file scope, not nested in the generic class: a type nested in a generic class is generic
// itself, and unspecialised code looked up its metadata (and `Locked<State>`'s) on every use.
private struct MergeState {
    var active = 0
    var sourceStopped = false
    /// How many elements wait in the sink's queue (`.limited`): the queue itself is touched
    /// only when some do.
    var waiting = 0
    /// Set when the sink is disposed: a subscription handed over afterwards is disposed at once.
    var disposed = false
    /// The source's subscription, from when `subscribe` returns it until the source stops or
    /// the sink is disposed.
    var source: Disposable?
    /// Each running inner sequence's subscription by key: reserved (nil) before the inner
    /// sequence is subscribed to, since it can complete inside `subscribe`; a key gone means
    /// it completed. (A dictionary: inner sequences complete in any order.)
    var inner: [Int: Disposable?] = [:]
    var nextKey = 0
}

/// What an inner sequence's completion leads to, decided under the lock.
private enum InnerCompletion {
    /// A waiting element takes the slot over.
    case takeWaiting
    /// The slot is free; nothing more to do.
    case idle
    /// The source and every inner sequence completed.
    case done
}

/// The elements a `.limited` merge keeps waiting for a free slot, in order. A class made on
/// the first wait: a merge that never waits (most) makes none, and its sink's optional
/// reference to it is initialised without the generic metadata an empty array of optional
/// elements needed.
private final class MergeQueue<Element> {
    /// From `start` on; a slot is emptied as its element is taken out, so that compacting
    /// never lets go of an element under the lock (its deinit is arbitrary code).
    private var elements: [Element?] = []
    private var start = 0

    func append(_ element: Element) {
        elements.append(element)
    }

    /// The first waiting element (there must be one).
    func removeFirst() -> Element {
        let first = elements[start]!
        elements[start] = nil
        start += 1
        if start == elements.count {
            elements.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 && start * 2 > elements.count {
            elements.removeFirst(start)
            start = 0
        }
        return first
    }
}

/// The sink of `flatMap`, `merge`, `concatMap`, `flatMapFirst`, `merge(maxConcurrent:)`.
///
/// It holds the source's subscription and the inner ones itself (`sourceSubscription` and
/// `innerSubscription` edges), under its one lock, where RxSwift's keeps a composite disposable
/// and a single-assignment disposable per subscription: three objects and four edges fewer per
/// subscription, same order of disposal (the source's, then the inner ones in the order they
/// were made).
private final class MergeSink<SourceElement, Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    /// Elements waiting for a free slot (`.limited`), made on the first wait; read and written
    /// only under `state`'s lock, which serialises the accesses (its exclusivity is not checked
    /// at run time).
    @exclusivity(unchecked) private var queue: MergeQueue<Observable<Observer.Element>>?

    private let mode: MergeMode
    private let selector: (SourceElement) throws -> Observable<Observer.Element>
    private let state = Locked(MergeState())

    init(
        mode: MergeMode, selector: @escaping (SourceElement) throws -> Observable<Observer.Element>,
        observer: Observer, cancel: Cancelable
    ) {
        self.mode = mode
        self.selector = selector
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<SourceElement>) -> Disposable {
        let subscription = source.subscribe(self)
        let tracked = subscription.trackedObject
        let kept = state.locked { state -> Bool in
            // Stopped or disposed inside `subscribe`: not kept, disposed now.
            guard !state.disposed, !state.sourceStopped else { return false }
            state.source = subscription
            if let tracked { addTrackedEdge(to: tracked, label: .sourceSubscription) }
            return true
        }
        if !kept { subscription.dispose() }
        // The sink disposes everything it holds (see `dispose()`).
        return Disposables.create()
    }

    /// Disposes the source's subscription, then the inner ones in the order they were made.
    override func dispose() {
        super.dispose()
        let (source, inner) = state.locked { state -> (Disposable?, [Int: Disposable?]) in
            guard !state.disposed else { return (nil, [:]) }
            state.disposed = true
            let source = state.source
            let inner = state.inner
            state.source = nil
            state.inner = [:]
            removeTrackedEdges(label: .sourceSubscription)
            removeTrackedEdges(label: .innerSubscription)
            return (source, inner)
        }
        source?.dispose()
        guard !inner.isEmpty else { return }
        for (_, subscription) in inner.sorted(by: { $0.key < $1.key }) { subscription?.dispose() }
    }

    func onNext(_ element: SourceElement) {
        // The inner sequence and its subscription are this subscription's work: they share
        // its allocation stack (no capture per element).
        let site = LeakGraph.enterAllocationSite(of: self)
        defer { if site { LeakGraph.leaveAllocationSite() } }
        switch mode {
        case .all: nextElement(element)
        case .firstOnly, .limited: nextElementLimited(element)
        }
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): serialForwardError(error)
        case .completed: sourceCompleted()
        }
    }

    func onCompleted() {
        sourceCompleted()
    }

    private func sourceCompleted() {
        let (done, source) = state.locked { state -> (Bool, Disposable?) in
            state.sourceStopped = true
            if state.active == 0 { return (true, nil) }
            // Inner sequences still run: the source's subscription goes now, as RxSwift's does.
            let source = state.source
            state.source = nil
            if source != nil { removeTrackedEdges(label: .sourceSubscription) }
            return (false, source)
        }
        if done {
            serialForwardCompleted()
        } else {
            source?.dispose()
        }
    }

    /// The unlimited path: mapped first, as RxSwift's flatMap does. (Written out: the hot path
    /// of every flatMap event.)
    @inline(__always)
    private func nextElement(_ element: SourceElement) {
        let inner: Observable<Observer.Element>
        do {
            inner = try selector(element)
        } catch {
            serialForwardError(error)
            return
        }
        guard !isStopped else { return }
        state.locked { $0.active += 1 }
        subscribe(inner)
    }

    /// The `.firstOnly` and `.limited` paths, out of line: they kept the unlimited path of
    /// `on(_:)` from being inlined and specialised (about 900 instructions per flatMap event).
    @inline(never)
    private func nextElementLimited(_ element: SourceElement) {
        switch mode {
        case .all: return
        case .firstOnly:
            let free = state.locked { state -> Bool in
                guard state.active == 0 else { return false }
                state.active = 1
                return true
            }
            guard free else { return }
            // A selector that throws fails the whole sequence, so the slot need not be given back.
            if let inner = map(element) { subscribe(inner) }
        case .limited(let maximum):
            // Mapped as it arrives (a selector that throws fails the sequence then), subscribed
            // when its turn comes: RxSwift's concatMap.
            guard let inner = map(element) else { return }
            let free = state.locked { state -> Bool in
                guard state.active < maximum else {
                    enqueue(inner)
                    state.waiting += 1
                    return false
                }
                state.active += 1
                return true
            }
            if free { subscribe(inner) }
        }
    }

    /// Queues `element` (under `state`'s lock).
    @inline(never)
    private func enqueue(_ inner: Observable<Observer.Element>) {
        if queue == nil { queue = MergeQueue() }
        queue!.append(inner)
    }

    private func map(_ element: SourceElement) -> Observable<Observer.Element>? {
        do {
            return try selector(element)
        } catch {
            serialForwardError(error)
            return nil
        }
    }

    private func subscribe(_ inner: Observable<Observer.Element>) {
        let key: Int? = state.locked { state in
            guard !state.disposed else { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.inner.updateValue(nil, forKey: key)
            return key
        }
        guard let key else { return }
        let subscription = inner.subscribe(MergeSinkIter(parent: self, key: key))
        let tracked = subscription.trackedObject
        let kept = state.locked { state -> Bool in
            // Completed (or disposed) inside `subscribe`: its key is gone; disposed now.
            guard state.inner[key] != nil else { return false }
            state.inner[key] = subscription
            if let tracked { addTrackedEdge(to: tracked, label: .innerSubscription) }
            return true
        }
        if !kept { subscription.dispose() }
    }

    func innerCompleted(_ key: Int) {
        let limited: Bool
        if case .limited = mode { limited = true } else { limited = false }
        let (outcome, subscription) = state.locked { state -> (InnerCompletion, Disposable?) in
            let subscription = state.inner.removeValue(forKey: key) ?? nil
            if let tracked = subscription?.trackedObject {
                removeTrackedEdge(to: tracked, label: .innerSubscription)
            }
            if limited && state.waiting > 0 { return (.takeWaiting, subscription) }
            state.active -= 1
            return (state.sourceStopped && state.active == 0 ? .done : .idle, subscription)
        }
        subscription?.dispose()
        switch outcome {
        case .idle: return
        case .done: serialForwardCompleted()
        case .takeWaiting: takeWaiting()
        }
    }

    /// A waiting element takes the completed one's slot over (`.limited`). Out of line: only this
    /// path handles elements in the queue.
    @inline(never)
    private func takeWaiting() {
        let next: Observable<Observer.Element>? = state.locked { state in
            guard state.waiting > 0 else { return nil }
            state.waiting -= 1
            return queue!.removeFirst()
        }
        guard let next else {
            // Another thread's completion took the last waiting element meanwhile: this slot is
            // freed after all.
            let done = state.locked { state in
                state.active -= 1
                return state.sourceStopped && state.active == 0
            }
            if done { serialForwardCompleted() }
            return
        }
        LeakGraph.withAllocationSite(of: self) { subscribe(next) }
    }
}

private final class FlatMap<SourceElement, Result>: Producer<Result> {
    private let source: Observable<SourceElement>
    private let selector: (SourceElement) throws -> Observable<Result>

    private let mode: MergeMode

    init(
        source: Observable<SourceElement>, mode: MergeMode,
        selector: @escaping (SourceElement) throws -> Observable<Result>
    ) {
        self.source = source
        self.mode = mode
        self.selector = selector
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Result {
        let sink = MergeSink(mode: mode, selector: selector, observer: observer, cancel: cancel)
        return (sink, sink.run(source))
    }
}
