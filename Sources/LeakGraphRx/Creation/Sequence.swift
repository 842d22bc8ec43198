import LeakGraph

extension ObservableType {
    /// An observable that emits `elements` in order, then completes, synchronously.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).subscribe(onNext: { print($0) })   // 1, 2, 3
    /// ```
    public static func of(_ elements: Element...) -> Observable<Element> {
        ObservableSequence(elements)
    }

    /// An observable that emits the elements of `array`, then completes.
    public static func from(_ array: [Element]) -> Observable<Element> {
        ObservableSequence(array)
    }

    /// An observable that emits the elements of `sequence`, then completes. Disposing during
    /// the iteration stops it.
    public static func from<Elements: Swift.Sequence>(_ sequence: Elements) -> Observable<Element>
    where Elements.Element == Element {
        ObservableSequence(sequence)
    }
}

private final class ObservableSequenceSink<Elements: Swift.Sequence, Observer: ObserverType>: Sink<Observer>
where Elements.Element == Observer.Element {
    func run(_ elements: Elements) {
        for element in elements {
            if isStopped { return }
            forwardNext(element)
        }
        forwardTerminalAndDispose(.completed)
    }
}

private final class ObservableSequence<Elements: Swift.Sequence>: Producer<Elements.Element> {
    let elements: Elements

    init(_ elements: Elements) {
        self.elements = elements
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ObservableSequenceSink<Elements, Observer>(observer: observer, cancel: cancel)
        sink.run(elements)
        return (sink, Disposables.create())
    }
}
