import LeakGraph
import Synchronization

extension ObservableType {
    /// Emits `resultSelector` of the latest elements of both sources, each time either emits
    /// once both have emitted. Completes when both completed (as RxSwift: a source that
    /// completes without emitting does not end it at once); the first error terminates.
    ///
    /// ```swift
    /// Observable.combineLatest(a, b) { $0 + $1 }
    /// ```
    public static func combineLatest<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        CombineLatest<(A.Element?, B.Element?), (A.Element, B.Element), Element>(
            sources: [a.asObservable(), b.asObservable()], partial: (nil, nil),
            complete: { partial in
                guard let a = partial.0, let b = partial.1 else { return nil }
                return (a, b)
            },
            resultSelector: { values in try resultSelector(values.0, values.1) },
            connect: { sink in
                [
                    a.asObservable().subscribe(sink.observer(index: 0) { $0.0 = $1 }),
                    b.asObservable().subscribe(sink.observer(index: 1) { $0.1 = $1 }),
                ]
            })
    }

    /// `combineLatest` of three sources.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        CombineLatest<(A.Element?, B.Element?, C.Element?), (A.Element, B.Element, C.Element), Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable()], partial: (nil, nil, nil),
            complete: { partial in
                guard let a = partial.0, let b = partial.1, let c = partial.2 else { return nil }
                return (a, b, c)
            },
            resultSelector: { values in try resultSelector(values.0, values.1, values.2) },
            connect: { sink in
                [
                    a.asObservable().subscribe(sink.observer(index: 0) { $0.0 = $1 }),
                    b.asObservable().subscribe(sink.observer(index: 1) { $0.1 = $1 }),
                    c.asObservable().subscribe(sink.observer(index: 2) { $0.2 = $1 }),
                ]
            })
    }

}

/// The shared sink of combineLatest: `Partial` holds the latest value of each source (as
/// optionals), `Complete` all of them once each has one.
final class CombineLatestSink<Partial, Complete, Observer: ObserverType>: SerializingSink<Observer> {
    private struct State {
        var partial: Partial
        var hasValue = 0
        var done = 0
    }

    private let state: Locked<State>
    private let count: Int
    private let complete: (Partial) -> Complete?
    private let resultSelector: (Complete) throws -> Observer.Element

    init(
        count: Int, partial: Partial, complete: @escaping (Partial) -> Complete?,
        resultSelector: @escaping (Complete) throws -> Observer.Element, observer: Observer, cancel: Cancelable
    ) {
        self.count = count
        self.state = Locked(State(partial: partial))
        self.complete = complete
        self.resultSelector = resultSelector
        super.init(observer: observer, cancel: cancel)
    }

    /// The observer of source `index`, storing its elements with `store`.
    func observer<Value>(index: Int, store: @escaping (inout Partial, Value) -> Void)
        -> ForwardingObserver<CombineLatestSink, Value>
    {
        ForwardingObserver(parent: self) { sink, event in sink.on(event, index: index, store: store) }
    }

    private func on<Value>(_ event: Event<Value>, index: Int, store: (inout Partial, Value) -> Void) {
        let bit = 1 << index
        let all = (1 << count) - 1
        switch event {
        case .next(let value):
            let (values, othersDone) = state.locked { state -> (Complete?, Bool) in
                store(&state.partial, value)
                state.hasValue |= bit
                if state.hasValue == all { return (complete(state.partial), false) }
                // As RxSwift: a source that never had a value and completed can no longer
                // complete a row; once every other source is done, this one ends the sequence.
                return (nil, state.done | bit == all)
            }
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
            let finished = state.locked { state in
                state.done |= bit
                return state.done == all
            }
            if finished { serialForward(.completed) }
        }
    }
}

final class CombineLatest<Partial, Complete, Element>: Producer<Element> {
    typealias ErasedSink = CombineLatestSink<Partial, Complete, AnyObserver<Element>>
    private let count: Int
    private let partial: Partial
    private let complete: (Partial) -> Complete?
    private let resultSelector: (Complete) throws -> Element
    private let connect: (ErasedSink) -> [Disposable]

    init(
        sources: [TrackedObject], partial: Partial, complete: @escaping (Partial) -> Complete?,
        resultSelector: @escaping (Complete) throws -> Element, connect: @escaping (ErasedSink) -> [Disposable]
    ) {
        self.count = sources.count
        self.partial = partial
        self.complete = complete
        self.resultSelector = resultSelector
        self.connect = connect
        super.init()
        for source in sources { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ErasedSink(
            count: count, partial: partial, complete: complete, resultSelector: resultSelector,
            observer: AnyObserver(observer), cancel: cancel)
        if let tracked = asTrackedObject(observer) { sink.addTrackedEdge(to: tracked, label: .observer) }
        return (sink, CompositeDisposable(disposables: connect(sink)))
    }
}

extension ObservableType where Element == Any {
    /// `combineLatest` of two sources as tuples.
    public static func combineLatest<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<
        (A.Element, B.Element)
    > {
        let select: (A.Element, B.Element) throws -> (A.Element, B.Element) = { ($0, $1) }
        return Observable<(A.Element, B.Element)>.combineLatest(a, b, resultSelector: select)
    }

    /// `combineLatest` of three sources as tuples.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C
    ) -> Observable<(A.Element, B.Element, C.Element)> {
        let select: (A.Element, B.Element, C.Element) throws -> (A.Element, B.Element, C.Element) = { ($0, $1, $2) }
        return Observable<(A.Element, B.Element, C.Element)>.combineLatest(a, b, c, resultSelector: select)
    }
}
