import LeakGraph
import Synchronization

extension ObservableType {
    /// Emits this observable's elements, then, once it completed, `second`'s.
    ///
    /// ```swift
    /// Observable.of(1).concat(Observable.of(2)).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element>
    where Source.Element == Element {
        Concat(sources: [asObservable(), second.asObservable()])
    }

    /// Emits the elements of each observable of `sequence` in turn. (The sequence is read
    /// whole at subscription; RxSwift reads it as it goes, which only differs for a sequence
    /// without end.)
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        Observable.deferred { Concat(sources: Array(sequence)) }
    }

    /// Emits the elements of each observable of `collection` in turn.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        Concat(sources: Array(collection))
    }

    /// Emits the elements of each of `sources` in turn, subscribing to the next when the
    /// previous completed.
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        Concat(sources: sources)
    }

    /// Emits the elements of each of `sources` in turn.
    public static func concat(_ sources: [Observable<Element>]) -> Observable<Element> {
        Concat(sources: sources)
    }
}

// At file scope, not nested in the generic class: a type nested in a generic class is generic
// itself, and unspecialised code looked up its metadata (and `Locked<State>`'s) on every use.
private struct ConcatState: Sendable {
    var index = 0
    var running = false
    var again = false
}

private final class ConcatSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    private let sources: [Observable<Element>]
    private let current = SerialDisposable()
    private let state = Locked(ConcatState())

    init(sources: [Observable<Element>], observer: Observer, cancel: Cancelable) {
        self.sources = sources
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: current, label: .current)
    }

    func run() -> Disposable {
        moveNext()
        return current
    }

    func on(_ event: Event<Element>) {
        // Delivered outside the allocation site the source's subscription was made in.
        LeakGraph.outsideAllocationSite {
            switch event {
            case .next: forwardOn(event)
            case .error: forwardTerminalAndDispose(event)
            case .completed: moveNext()
            }
        }
    }

    /// Subscribes to the next source; a source completing synchronously loops here instead of
    /// recursing.
    private func moveNext() {
        let start = state.withLock { state in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        while true {
            let index = state.withLock { state in
                state.again = false
                state.index += 1
                return state.index - 1
            }
            if isStopped { return }
            if index >= sources.count {
                forwardTerminalAndDispose(.completed)
                return
            }
            // The next source's subscription shares this sink's allocation stack.
            LeakGraph.withAllocationSite(of: self) {
                let subscription = SingleAssignmentDisposable()
                current.disposable = subscription
                subscription.setDisposable(sources[index].subscribe(self))
            }
            let again = state.withLock { state in
                if !state.again { state.running = false }
                return state.again
            }
            if !again { return }
        }
    }
}

private final class Concat<Element>: Producer<Element> {
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>]) {
        self.sources = sources
        super.init()
        for source in sources { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ConcatSink(sources: sources, observer: observer, cancel: cancel)
        return (sink, sink.run())
    }
}
