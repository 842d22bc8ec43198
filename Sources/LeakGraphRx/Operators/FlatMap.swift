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
    public func flatMap<Source: ObservableType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        FlatMap(source: asObservable()) { try selector($0).asObservable() }
    }
}

extension ObservableType where Element: ObservableType {
    /// Merges the elements of the inner observables this observable emits.
    public func merge() -> Observable<Element.Element> {
        flatMap { $0 }
    }
}

extension ObservableType {
    /// Merges the elements of `sources`; completes when all completed.
    ///
    /// ```swift
    /// Observable.merge(Observable.of(1), Observable.of(2)).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        Observable.from(sources).merge()
    }

    /// Merges the elements of `sources`; completes when all completed.
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable.from(sources).merge()
    }
}

/// The observer of one inner subscription of a flatMap: forwards to its parent sink (`parent`
/// edge).
private final class MergeSinkIter<SourceElement, Observer: ObserverType>: TrackedObject, ObserverType {
    typealias Element = Observer.Element
    private let parent: MergeSink<SourceElement, Observer>
    private let key: CompositeDisposable.DisposeKey

    init(parent: MergeSink<SourceElement, Observer>, key: CompositeDisposable.DisposeKey) {
        self.parent = parent
        self.key = key
        super.init()
        addTrackedEdge(to: parent, label: .parent)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next, .error: parent.serialForward(event)
        case .completed: parent.innerCompleted(key)
        }
    }
}

private final class MergeSink<SourceElement, Observer: ObserverType>: SerializingSink<Observer>, ObserverType {
    private struct State {
        var active = 0
        var sourceStopped = false
    }

    private let selector: (SourceElement) throws -> Observable<Observer.Element>
    private let group = CompositeDisposable()
    private let sourceSubscription = SingleAssignmentDisposable()
    private let state = Locked(State())

    init(
        selector: @escaping (SourceElement) throws -> Observable<Observer.Element>, observer: Observer,
        cancel: Cancelable
    ) {
        self.selector = selector
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: group, label: .group)
        addTrackedEdge(to: sourceSubscription, label: .sourceSubscription)
    }

    func run(_ source: Observable<SourceElement>) -> Disposable {
        group.insert(sourceSubscription)
        sourceSubscription.setDisposable(source.subscribe(self))
        return group
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            let inner: Observable<Observer.Element>
            do {
                inner = try selector(element)
            } catch {
                serialForward(.error(error))
                return
            }
            guard !isStopped else { return }
            state.locked { $0.active += 1 }
            let innerSubscription = SingleAssignmentDisposable()
            guard let key = group.insert(innerSubscription) else { return }
            innerSubscription.setDisposable(inner.subscribe(MergeSinkIter(parent: self, key: key)))
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            let done = state.locked { state in
                state.sourceStopped = true
                return state.active == 0
            }
            if done {
                serialForward(.completed)
            } else {
                sourceSubscription.dispose()
            }
        }
    }

    func innerCompleted(_ key: CompositeDisposable.DisposeKey) {
        group.remove(for: key)
        let done = state.locked { state in
            state.active -= 1
            return state.sourceStopped && state.active == 0
        }
        if done { serialForward(.completed) }
    }
}

private final class FlatMap<SourceElement, Result>: Producer<Result> {
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
        let sink = MergeSink(selector: selector, observer: observer, cancel: cancel)
        return (sink, sink.run(source))
    }
}
