import LeakGraph

extension ObservableType {
    /// Emits the latest element of the source each time `sampler` emits (or completes), if a
    /// new one arrived since the last sample (or `defaultValue` when given).
    ///
    /// ```swift
    /// position.sample(Observable<Int>.interval(.seconds(1), scheduler: scheduler))
    /// ```
    public func sample<Source: ObservableType>(_ sampler: Source, defaultValue: Element? = nil)
        -> Observable<Element>
    {
        Sample(source: asObservable(), sampler: sampler.asObservable(), defaultValue: defaultValue)
    }
}

private final class SampleSink<Observer: ObserverType, SamplerElement>: SerializingSink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private struct State {
        var element: Element?
        var atEnd = false
    }

    private let defaultValue: Element?
    private let state = Locked(State())
    let sourceSubscription = SingleAssignmentDisposable()

    init(defaultValue: Element?, observer: Observer, cancel: Cancelable) {
        self.defaultValue = defaultValue
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // The replaced element is released after unlocking (its deinit may re-enter).
            let replaced = state.locked { state -> Element? in
                defer { state.element = element }
                return state.element
            }
            _ = replaced
        case .error: serialForward(event)
        case .completed:
            state.locked { $0.atEnd = true }
            sourceSubscription.dispose()
        }
    }

    fileprivate func samplerEvent(_ event: Event<SamplerElement>) {
        if case .error(let error) = event { return serialForward(.error(error)) }
        let (element, atEnd) = state.locked { state -> (Element?, Bool) in
            defer { state.element = nil }
            return (state.element ?? defaultValue, state.atEnd)
        }
        if let element { serialForward(.next(element)) }
        if atEnd { serialForward(.completed) }
    }
}

private final class SamplerObserver<Observer: ObserverType, SamplerElement>: ObserverType {
    private let sink: SampleSink<Observer, SamplerElement>

    init(sink: SampleSink<Observer, SamplerElement>) {
        self.sink = sink
    }

    func on(_ event: Event<SamplerElement>) {
        sink.samplerEvent(event)
    }
}

private final class Sample<Element, SamplerElement>: Producer<Element> {
    private let source: Observable<Element>
    private let sampler: Observable<SamplerElement>
    private let defaultValue: Element?

    init(source: Observable<Element>, sampler: Observable<SamplerElement>, defaultValue: Element?) {
        self.source = source
        self.sampler = sampler
        self.defaultValue = defaultValue
        super.init()
        addTrackedEdge(to: source, label: .source)
        addTrackedEdge(to: sampler, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = SampleSink<Observer, SamplerElement>(defaultValue: defaultValue, observer: observer, cancel: cancel)
        sink.sourceSubscription.setDisposable(source.subscribe(sink))
        let samplerSubscription = sampler.subscribe(SamplerObserver(sink: sink))
        return (sink, Disposables.create(sink.sourceSubscription, samplerSubscription))
    }
}
