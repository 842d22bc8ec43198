import LeakGraph

extension ObservableType {
    /// An observable that emits `elements` in order, then completes.
    ///
    /// Each element is a step on `scheduler` (by default the current thread's trampoline, so a
    /// top-level subscription still receives everything before `subscribe` returns).
    ///
    /// ```swift
    /// Observable.of(1, 2, 3).subscribe(onNext: { print($0) })   // 1, 2, 3
    /// ```
    public static func of(
        _ elements: Element..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        ObservableSequence(elements, scheduler: scheduler)
    }

    /// An observable that emits the elements of `array`, then completes.
    public static func from(
        _ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        ObservableSequence(array, scheduler: scheduler)
    }

    /// An observable that emits the elements of `sequence`, then completes. Disposing during
    /// the iteration stops it.
    public static func from<Elements: Swift.Sequence>(
        _ sequence: Elements, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> where Elements.Element == Element {
        ObservableSequence(sequence, scheduler: scheduler)
    }

    /// An observable that emits `element` forever (until disposed).
    ///
    /// ```swift
    /// Observable.repeatElement("tick").take(3)   // tick, tick, tick
    /// ```
    public static func repeatElement(
        _ element: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        ObservableSequence(Swift.repeatElement(element, count: Int.max), scheduler: scheduler)
    }
}

private final class ObservableSequenceSink<Elements: Swift.Sequence, Observer: ObserverType>: SteppedSink<Observer>
where Elements.Element == Observer.Element {
    // Only the step in progress touches it, and steps run one at a time.
    private var iterator: Elements.Iterator

    init(elements: Elements, observer: Observer, cancel: Cancelable) {
        iterator = elements.makeIterator()
        super.init(observer: observer, cancel: cancel)
    }

    override func step() -> Bool {
        guard let element = iterator.next() else {
            forwardTerminalAndDispose(.completed)
            return false
        }
        forwardNext(element)
        return true
    }
}

private final class ObservableSequence<Elements: Swift.Sequence>: Producer<Elements.Element> {
    let elements: Elements
    let scheduler: ImmediateSchedulerType

    init(_ elements: Elements, scheduler: ImmediateSchedulerType) {
        self.elements = elements
        self.scheduler = scheduler
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = ObservableSequenceSink(elements: elements, observer: observer, cancel: cancel)
        return (sink, sink.start(on: scheduler))
    }
}
