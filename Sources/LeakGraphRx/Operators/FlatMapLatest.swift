import LeakGraph
import Synchronization

extension ObservableType {
    /// Maps each element to an infallible and forwards only the latest one's elements: the
    /// result cannot fail either.
    public func flatMapLatest<Source: InfallibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(flatMapLatest { try selector($0).asObservable() })
    }

    /// Maps each element to an observable and forwards only the latest one's elements:
    /// a new element disposes the previous inner subscription.
    ///
    /// Completes when the source and the latest inner observable completed.
    public func flatMapLatest<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        FlatMapLatest(source: asObservable()) { try selector($0).asObservable() }
    }
}

/// The observer of the current inner subscription of a flatMapLatest.
private final class SwitchSinkIter<SourceElement, Observer: ObserverType>: TrackedObject, ObserverType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    typealias Element = Observer.Element
    private let parent: SwitchSink<SourceElement, Observer>
    private let id: Int

    init(parent: SwitchSink<SourceElement, Observer>, id: Int) {
        self.parent = parent
        self.id = id
        super.init()
        addTrackedEdge(to: parent, label: .parent)
    }

    func on(_ event: Event<Element>) {
        // Delivered outside the allocation site the inner subscription was made in.
        LeakGraph.outsideAllocationSite { parent.inner(event, id: id) }
    }
}

// At file scope, not nested in the generic class: a type nested in a generic class is generic
// itself, and unspecialised code looked up its metadata (and `Locked<State>`'s) on every use.
private struct FlatMapLatestState {
    var latest = 0
    var hasLatest = false
    var sourceStopped = false
}

private final class SwitchSink<SourceElement, Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    private let selector: (SourceElement) throws -> Observable<Observer.Element>
    private let sourceSubscription = SingleAssignmentDisposable()
    private let innerSubscription = SerialDisposable()
    private let state = Locked(FlatMapLatestState())

    init(
        selector: @escaping (SourceElement) throws -> Observable<Observer.Element>, observer: Observer,
        cancel: Cancelable
    ) {
        self.selector = selector
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: sourceSubscription, label: .sourceSubscription)
        addTrackedEdge(to: innerSubscription, label: .current)
    }

    func run(_ source: Observable<SourceElement>) -> Disposable {
        sourceSubscription.setDisposable(source.subscribe(self))
        return Disposables.create(sourceSubscription, innerSubscription)
    }

    private func switchTo(_ element: SourceElement) {
        let inner: Observable<Observer.Element>
        do {
            inner = try selector(element)
        } catch {
            serialForward(.error(error))
            return
        }
        let id = state.locked { state in
            state.latest += 1
            state.hasLatest = true
            return state.latest
        }
        let subscription = SingleAssignmentDisposable()
        innerSubscription.disposable = subscription
        subscription.setDisposable(inner.subscribe(SwitchSinkIter(parent: self, id: id)))
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            // The inner sequence and its subscription share this subscription's allocation stack.
            LeakGraph.withAllocationSite(of: self) { switchTo(element) }
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            let done = state.locked { state in
                state.sourceStopped = true
                return !state.hasLatest
            }
            if done { serialForward(.completed) } else { sourceSubscription.dispose() }
        }
    }

    func inner(_ event: Event<Observer.Element>, id: Int) {
        switch event {
        case .next:
            if state.locked({ $0.latest == id }) { serialForward(event) }
        case .error:
            if state.locked({ $0.latest == id }) { serialForward(event) }
        case .completed:
            let done = state.locked { state -> Bool in
                guard state.latest == id else { return false }
                state.hasLatest = false
                return state.sourceStopped
            }
            if done { serialForward(.completed) }
        }
    }
}

private final class FlatMapLatest<SourceElement, Result>: Producer<Result> {
    private let source: Observable<SourceElement>
    private let selector: (SourceElement) throws -> Observable<Result>

    init(source: Observable<SourceElement>, selector: @escaping (SourceElement) throws -> Observable<Result>) {
        self.source = source
        self.selector = selector
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Result {
        let sink = SwitchSink(selector: selector, observer: observer, cancel: cancel)
        return (sink, sink.run(source))
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// The elements of the latest inner sequence: each new one replaces (disposes) the previous.
    ///
    /// ```swift
    /// searches.map { api.search($0) }.switchLatest().subscribe(onNext: { show($0) })
    /// ```
    public func switchLatest() -> Observable<Element.Element> {
        flatMapLatest { $0 }
    }
}
