import LeakGraph

extension ObservableType {
    /// `zip` of any number of sources of one element type: the n-th output combines the n-th
    /// element of each. Completes once every source completed, or when an element arrives that
    /// cannot make a row while every other source has ended (RxSwift's rule); an empty collection
    /// completes at once.
    ///
    /// ```swift
    /// Observable.zip([a, b, c]) { $0.reduce(0, +) }
    /// ```
    public static func zip<Collection: Swift.Collection>(
        _ collection: Collection, resultSelector: @escaping ([Collection.Element.Element]) throws -> Element
    ) -> Observable<Element> where Collection.Element: ObservableType {
        ZipCollection(sources: collection.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// `zip` of any number of sources, as arrays.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]>
    where Collection.Element: ObservableType, Collection.Element.Element == Element {
        ZipCollection(sources: collection.map { $0.asObservable() }) { $0 }
    }
}

/// zip over a collection: a queue per source and a count of the non-empty ones, so an element
/// costs O(1) until a row is complete.
private final class ZipCollectionSink<SourceElement, Observer: ObserverType>: SerializingSink<Observer> {
    private struct State {
        var queues: [ArraySlice<SourceElement>]
        var nonEmpty = 0
        var doneCount = 0
        var done: [Bool]
    }

    private let state: Locked<State>
    private let count: Int
    private let resultSelector: ([SourceElement]) throws -> Observer.Element

    init(
        count: Int, resultSelector: @escaping ([SourceElement]) throws -> Observer.Element, observer: Observer,
        cancel: Cancelable
    ) {
        self.count = count
        state = Locked(State(queues: Array(repeating: [], count: count), done: Array(repeating: false, count: count)))
        self.resultSelector = resultSelector
        super.init(observer: observer, cancel: cancel)
    }

    func observer(index: Int) -> ForwardingObserver<ZipCollectionSink, SourceElement> {
        ForwardingObserver(parent: self) { sink, event in sink.on(event, index: index) }
    }

    private func on(_ event: Event<SourceElement>, index: Int) {
        switch event {
        case .next(let value):
            let (row, othersDone) = state.locked { state -> ([SourceElement]?, Bool) in
                if state.queues[index].isEmpty { state.nonEmpty += 1 }
                state.queues[index].append(value)
                // No full row, and every other source has ended: RxSwift ends the zip here.
                guard state.nonEmpty == count else { return (nil, state.doneCount == count - 1) }
                var row: [SourceElement] = []
                row.reserveCapacity(count)
                for source in 0..<count {
                    row.append(state.queues[source].removeFirst())
                    if state.queues[source].isEmpty { state.nonEmpty -= 1 }
                }
                return (row, false)
            }
            if othersDone { return serialForward(.completed) }
            guard let row else { return }
            do {
                serialForward(.next(try resultSelector(row)))
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

private final class ZipCollection<SourceElement, Element>: Producer<Element> {
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
        let sink = ZipCollectionSink(
            count: sources.count, resultSelector: resultSelector, observer: observer, cancel: cancel)
        if sources.isEmpty {
            sink.serialForward(.completed)
            return (sink, Disposables.create())
        }
        let subscriptions = sources.indices.map { sources[$0].subscribe(sink.observer(index: $0)) }
        return (sink, CompositeDisposable(disposables: subscriptions))
    }
}
