import LeakGraph
import Synchronization

extension ObservableType {
    /// Pairs the sources' elements by index: the n-th output combines the n-th element of each
    /// source. Completes once every source has completed, as RxSwift's does (a completed
    /// source with nothing left to pair does not end it early).
    ///
    /// ```swift
    /// Observable.zip(Observable.of(1, 2), Observable.of("a", "b")) { "\($0)\($1)" }   // 1a, 2b
    /// ```
    public static func zip<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        Zip<([A.Element], [B.Element]), (A.Element, B.Element), Element>(
            sources: [a.asObservable(), b.asObservable()], queues: ([], []),
            pop: { queues in
                guard !queues.0.isEmpty, !queues.1.isEmpty else { return nil }
                return (queues.0.removeFirst(), queues.1.removeFirst())
            },
            resultSelector: { values in try resultSelector(values.0, values.1) },
            connect: { sink in
                [
                    a.asObservable().subscribe(sink.observer(index: 0) { $0.0.append($1) }),
                    b.asObservable().subscribe(sink.observer(index: 1) { $0.1.append($1) }),
                ]
            })
    }

    /// `zip` of three sources.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        Zip<([A.Element], [B.Element], [C.Element]), (A.Element, B.Element, C.Element), Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable()], queues: ([], [], []),
            pop: { queues in
                guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty else { return nil }
                return (queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst())
            },
            resultSelector: { values in try resultSelector(values.0, values.1, values.2) },
            connect: { sink in
                [
                    a.asObservable().subscribe(sink.observer(index: 0) { $0.0.append($1) }),
                    b.asObservable().subscribe(sink.observer(index: 1) { $0.1.append($1) }),
                    c.asObservable().subscribe(sink.observer(index: 2) { $0.2.append($1) }),
                ]
            })
    }

}

/// The shared sink of zip: `Queues` buffers each source's unpaired elements.
final class ZipSink<Queues, Complete, Observer: ObserverType>: SerializingSink<Observer> {
    private struct State {
        var queues: Queues
        var done = 0
    }

    private let state: Locked<State>
    private let count: Int
    private let pop: (inout Queues) -> Complete?
    private let resultSelector: (Complete) throws -> Observer.Element

    init(
        count: Int, queues: Queues, pop: @escaping (inout Queues) -> Complete?,
        resultSelector: @escaping (Complete) throws -> Observer.Element,
        observer: Observer, cancel: Cancelable
    ) {
        self.count = count
        self.state = Locked(State(queues: queues))
        self.pop = pop
        self.resultSelector = resultSelector
        super.init(observer: observer, cancel: cancel)
    }

    /// The observer of source `index`, buffering its elements with `push`.
    func observer<Value>(index: Int, push: @escaping (inout Queues, Value) -> Void)
        -> ForwardingObserver<ZipSink, Value>
    {
        ForwardingObserver(parent: self) { sink, event in sink.on(event, index: index, push: push) }
    }

    /// Whether every source completed: RxSwift's zip ends only then.
    private func allDone(_ state: State) -> Bool {
        state.done == (1 << count) - 1
    }

    private func on<Value>(_ event: Event<Value>, index: Int, push: (inout Queues, Value) -> Void) {
        switch event {
        case .next(let value):
            let values = state.locked { state -> Complete? in
                push(&state.queues, value)
                return pop(&state.queues)
            }
            if let values {
                do {
                    serialForward(.next(try resultSelector(values)))
                } catch {
                    serialForward(.error(error))
                }
            }
        case .error(let error):
            serialForward(.error(error))
        case .completed:
            let finished = state.locked { state in
                state.done |= 1 << index
                return allDone(state)
            }
            if finished { serialForward(.completed) }
        }
    }
}

final class Zip<Queues, Complete, Element>: Producer<Element> {
    typealias ErasedSink = ZipSink<Queues, Complete, AnyObserver<Element>>
    private let count: Int
    private let queues: Queues
    private let pop: (inout Queues) -> Complete?
    private let resultSelector: (Complete) throws -> Element
    private let connect: (ErasedSink) -> [Disposable]

    init(
        sources: [TrackedObject], queues: Queues, pop: @escaping (inout Queues) -> Complete?,
        resultSelector: @escaping (Complete) throws -> Element,
        connect: @escaping (ErasedSink) -> [Disposable]
    ) {
        self.count = sources.count
        self.queues = queues
        self.pop = pop
        self.resultSelector = resultSelector
        self.connect = connect
        super.init()
        for source in sources { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ErasedSink(
            count: count, queues: queues, pop: pop, resultSelector: resultSelector,
            observer: AnyObserver(observer), cancel: cancel)
        if let tracked = asTrackedObject(observer) { sink.addTrackedEdge(to: tracked, label: .observer) }
        return (sink, CompositeDisposable(disposables: connect(sink)))
    }
}

extension ObservableType where Element == Any {
    /// `zip` of two sources as tuples.
    public static func zip<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<
        (A.Element, B.Element)
    > {
        let select: (A.Element, B.Element) throws -> (A.Element, B.Element) = { ($0, $1) }
        return Observable<(A.Element, B.Element)>.zip(a, b, resultSelector: select)
    }

    /// `zip` of three sources as tuples.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(_ a: A, _ b: B, _ c: C)
        -> Observable<(A.Element, B.Element, C.Element)>
    {
        let select: (A.Element, B.Element, C.Element) throws -> (A.Element, B.Element, C.Element) = { ($0, $1, $2) }
        return Observable<(A.Element, B.Element, C.Element)>.zip(a, b, c, resultSelector: select)
    }
}
