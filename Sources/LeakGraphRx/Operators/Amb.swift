import LeakGraph

extension ObservableType {
    /// Mirrors whichever of `sources` sends an event first (an element, an error or a
    /// completion) and disposes the others.
    ///
    /// ```swift
    /// Observable.amb([primary, mirror])   // whichever answers first
    /// ```
    public static func amb<Sources: Swift.Sequence>(_ sequence: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        Amb(sources: Array(sequence))
    }

    /// Mirrors whichever of this sequence and `right` sends an event first.
    public func amb<Right: ObservableType>(_ right: Right) -> Observable<Element> where Right.Element == Element {
        Amb(sources: [asObservable(), right.asObservable()])
    }
}

private final class AmbSink<Observer: ObserverType>: SerializingSink<Observer> {
    /// The index of the winning source, once one sent something.
    private let winner = Locked<Int?>(nil)
    private var subscriptions: [SingleAssignmentDisposable] = []

    func run(_ sources: [Observable<Observer.Element>]) -> Disposable {
        subscriptions = sources.map { _ in SingleAssignmentDisposable() }
        for (index, source) in sources.enumerated() {
            subscriptions[index].setDisposable(
                source.subscribe(ForwardingObserver(parent: self) { sink, event in sink.on(event, from: index) }))
        }
        return CompositeDisposable(disposables: subscriptions)
    }

    private func on(_ event: Event<Observer.Element>, from index: Int) {
        let (wins, firstEvent) = winner.withLock { winner -> (Bool, Bool) in
            if let winner { return (winner == index, false) }
            winner = index
            return (true, true)
        }
        guard wins else { return }
        if firstEvent {
            for (other, subscription) in subscriptions.enumerated() where other != index { subscription.dispose() }
        }
        serialForward(event)
    }
}

private final class Amb<Element>: Producer<Element> {
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>]) {
        self.sources = sources
        super.init()
        for source in sources { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = AmbSink(observer: observer, cancel: cancel)
        return (sink, sink.run(sources))
    }
}
