import LeakGraph

extension ObservableType {
    /// `combineLatest` of any number of sources of one element type: `resultSelector` gets the
    /// latest element of each, in the collection's order. An empty collection sends `resultSelector([])`, then completes (as RxSwift).
    ///
    /// ```swift
    /// Observable.combineLatest([a, b, c]) { $0.reduce(0, +) }
    /// ```
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection, resultSelector: @escaping ([Collection.Element.Element]) throws -> Element
    ) -> Observable<Element> where Collection.Element: ObservableType {
        CombineLatestCollection(sources: collection.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// `combineLatest` of any number of sources, as arrays of their latest elements.
    ///
    /// ```swift
    /// Observable.combineLatest([a, b, c])   // [a's latest, b's latest, c's latest]
    /// ```
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]>
    where Collection.Element: ObservableType, Collection.Element.Element == Element {
        CombineLatestCollection(sources: collection.map { $0.asObservable() }) { $0 }
    }
}

/// combineLatest over a collection: counts instead of bit masks, so any number of sources, and
/// every event costs O(1) until all have a value (then an emission copies the values, as it must).
private final class CombineLatestCollectionSink<SourceElement, Observer: ObserverType>: SerializingSink<Observer> {
    private struct State {
        var values: [SourceElement?]
        var withValue = 0
        var done: [Bool]
        var doneCount = 0
    }

    private let state: Locked<State>
    private let count: Int
    private let resultSelector: ([SourceElement]) throws -> Observer.Element

    init(
        count: Int, resultSelector: @escaping ([SourceElement]) throws -> Observer.Element, observer: Observer,
        cancel: Cancelable
    ) {
        self.count = count
        state = Locked(State(values: Array(repeating: nil, count: count), done: Array(repeating: false, count: count)))
        self.resultSelector = resultSelector
        super.init(observer: observer, cancel: cancel)
    }

    func observer(index: Int) -> ForwardingObserver<CombineLatestCollectionSink, SourceElement> {
        ForwardingObserver(parent: self) { sink, event in sink.on(event, index: index) }
    }

    private func on(_ event: Event<SourceElement>, index: Int) {
        switch event {
        case .next(let value):
            // The replaced value is released after unlocking (its deinit may re-enter).
            var replaced: SourceElement?
            let (values, othersDone) = state.locked { state -> ([SourceElement]?, Bool) in
                replaced = state.values[index]
                if replaced == nil { state.withValue += 1 }
                state.values[index] = value
                if state.withValue == count { return (state.values.map { $0! }, false) }
                // As RxSwift: once every other source is done, no row can complete any more.
                return (nil, state.doneCount - (state.done[index] ? 1 : 0) == count - 1)
            }
            _ = replaced
            if othersDone { return serialForward(.completed) }
            guard let values else { return }
            do {
                serialForward(.next(try resultSelector(values)))
            } catch {
                serialForward(.error(error))
            }
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            let finished = state.locked { state -> Bool in
                if !state.done[index] {
                    state.done[index] = true
                    state.doneCount += 1
                }
                return state.doneCount == count
            }
            if finished { serialForward(.completed) }
        }
    }
}

private final class CombineLatestCollection<SourceElement, Element>: Producer<Element> {
    private let sources: [Observable<SourceElement>]
    private let resultSelector: ([SourceElement]) throws -> Element

    init(sources: [Observable<SourceElement>], resultSelector: @escaping ([SourceElement]) throws -> Element) {
        self.sources = sources
        self.resultSelector = resultSelector
        super.init()
        for source in sources { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = CombineLatestCollectionSink(
            count: sources.count, resultSelector: resultSelector, observer: observer, cancel: cancel)
        if sources.isEmpty {
            // No source: the one row there can ever be, the empty one, then completion (as RxSwift).
            do {
                sink.serialForward(.next(try resultSelector([])))
                sink.serialForward(.completed)
            } catch {
                sink.serialForward(.error(error))
            }
            return (sink, Disposables.create())
        }
        let subscriptions = sources.indices.map { sources[$0].subscribe(sink.observer(index: $0)) }
        return (sink, CompositeDisposable(disposables: subscriptions))
    }
}
