import LeakGraph

extension ObservableType {
    /// Continues a sequence that fails with the observable `handler` returns for the error; a
    /// thrown error terminates the sequence.
    ///
    /// ```swift
    /// failing.catch { _ in .just(0) }.subscribe(onNext: { print($0) })
    /// ```
    public func `catch`(_ handler: @escaping (Swift.Error) throws -> Observable<Element>) -> Observable<Element> {
        Catch(source: asObservable(), handler: handler)
    }

    /// RxSwift 5's name of ``catch(_:)``.
    @available(*, deprecated, renamed: "catch(_:)")
    public func catchError(_ handler: @escaping (Swift.Error) throws -> Observable<Element>) -> Observable<Element> {
        `catch`(handler)
    }

    /// RxSwift 5's name of ``catchAndReturn(_:)``.
    @available(*, deprecated, renamed: "catchAndReturn(_:)")
    public func catchErrorJustReturn(_ element: Element) -> Observable<Element> {
        catchAndReturn(element)
    }

    /// Subscribes to the sources one after another, moving to the next when one fails: completes
    /// with the first that completes, fails with the last error when none is left.
    ///
    /// ```swift
    /// Observable.catch(sequence: [primary, fallback]).subscribe(onNext: { print($0) })
    /// ```
    public static func `catch`<Sources: Swift.Sequence>(sequence: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        // Reported as references only when the sequence can be read twice (a collection).
        CatchSequence(sources: sequence, tracked: sequence is any Collection ? Array(sequence.prefix(16)) : [])
    }

    /// RxSwift 5's name of ``catch(sequence:)``.
    @available(*, deprecated, renamed: "catch(onSuccess:onFailure:onDisposed:)")
    public static func catchError<Sources: Swift.Sequence>(_ sequence: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        `catch`(sequence: sequence)
    }

    /// Subscribes to the source again each time it fails, until it completes. (A source that
    /// keeps failing is retried forever.)
    ///
    /// ```swift
    /// flakyRequest.retry().subscribe(onNext: { print($0) })
    /// ```
    public func retry() -> Observable<Element> {
        let source = asObservable()
        return CatchSequence(sources: Swift.repeatElement(source, count: Int.max), tracked: [source])
    }

    /// Subscribes to the source up to `maxAttemptCount` times in all while it fails: with
    /// `retry(2)` a failing source is tried twice and its second error is forwarded.
    ///
    /// ```swift
    /// flakyRequest.retry(3).subscribe(onNext: { print($0) })
    /// ```
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        let source = asObservable()
        return CatchSequence(sources: Swift.repeatElement(source, count: max(0, maxAttemptCount)), tracked: [source])
    }
}

private final class CatchSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let handler: (Swift.Error) throws -> Observable<Element>
    private let subscription = SerialDisposable()

    init(handler: @escaping (Swift.Error) throws -> Observable<Element>, observer: Observer, cancel: Cancelable) {
        self.handler = handler
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: subscription, label: .current)
    }

    func run(source: Observable<Element>) -> Disposable {
        let first = SingleAssignmentDisposable()
        subscription.disposable = first
        first.setDisposable(source.subscribe(self))
        return subscription
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .completed: forwardTerminalAndDispose(event)
        case .error(let error):
            // The fallback and its subscription share this sink's allocation stack.
            LeakGraph.withAllocationSite(of: self) { switchToFallback(after: error) }
        }
    }

    private func switchToFallback(after error: Swift.Error) {
        let next: Observable<Element>
        do {
            next = try handler(error)
        } catch {
            return forwardError(error)
        }
        let proxy = ForwardingObserver<CatchSink, Element>(parent: self) { sink, event in
            // Delivered outside the allocation site the fallback's subscription was made in.
            LeakGraph.outsideAllocationSite {
                if case .next = event { sink.forwardOn(event) } else { sink.forwardTerminalAndDispose(event) }
            }
        }
        subscription.disposable = next.subscribe(proxy)
    }
}

private final class Catch<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let handler: (Swift.Error) throws -> Observable<Element>

    init(source: Observable<Element>, handler: @escaping (Swift.Error) throws -> Observable<Element>) {
        self.source = source
        self.handler = handler
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = CatchSink(handler: handler, observer: observer, cancel: cancel)
        return (sink, sink.run(source: source))
    }
}

/// Subscribes to its sources in turn while they fail. A source that fails while it is being
/// subscribed to (synchronously) is followed by the next one from the same loop, not from
/// inside the failing subscription: `retry()` on a source that fails at once runs in constant
/// stack, as RxSwift's trampoline does.
private final class CatchSequenceSink<Sources: IteratorProtocol, Observer: ObserverType>: Sink<Observer>, ObserverType
where Sources.Element == Observable<Observer.Element> {
    typealias Element = Observer.Element

    private struct State {
        var sources: Sources
        var subscribing = false
        var failedWhileSubscribing = false
        var lastError: Swift.Error?
    }

    private let state: Locked<State>
    private let subscription = SerialDisposable()

    /// - Parameter tracked: The sources the iterator holds, reported as references (the
    ///   iterator sits behind a lock, where discovery does not look).
    init(sources: Sources, tracked: [Observable<Element>], observer: Observer, cancel: Cancelable) {
        state = Locked(State(sources: sources))
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: subscription, label: .current)
        for source in tracked { addTrackedEdge(to: source, label: .sources) }
    }

    func run() -> Disposable {
        subscribeToNext()
        return subscription
    }

    private func subscribeToNext() {
        while !isStopped {
            let next = state.locked { state -> Observable<Element>? in
                guard let source = state.sources.next() else { return nil }
                state.subscribing = true
                state.failedWhileSubscribing = false
                return source
            }
            guard let next else {
                let error = state.locked { $0.lastError }
                if let error { forwardError(error) } else { forwardTerminalAndDispose(.completed) }
                return
            }
            // Each new attempt's subscription shares this sink's allocation stack.
            LeakGraph.withAllocationSite(of: self) {
                let inner = SingleAssignmentDisposable()
                subscription.disposable = inner
                inner.setDisposable(next.subscribe(self))
            }
            let again = state.locked { state -> Bool in
                state.subscribing = false
                return state.failedWhileSubscribing
            }
            if !again { return }
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .completed: forwardTerminalAndDispose(event)
        case .error(let error):
            // The previous error is let go of after unlocking (its deinit is arbitrary code).
            let (later, previousError) = state.locked { state -> (Bool, Swift.Error?) in
                defer { state.lastError = error }
                if state.subscribing {
                    state.failedWhileSubscribing = true
                    return (true, state.lastError)
                }
                return (false, state.lastError)
            }
            _ = previousError
            if !later { subscribeToNext() }
        }
    }
}

private final class CatchSequence<Sources: Swift.Sequence, Element>: Producer<Element>
where Sources.Element == Observable<Element> {
    private let sources: Sources
    private let tracked: [Observable<Element>]

    /// - Parameter tracked: The sources reported as references (a sequence can be endless).
    init(sources: Sources, tracked: [Observable<Element>]) {
        self.sources = sources
        self.tracked = tracked
        super.init()
        for source in tracked { addTrackedEdge(to: source, label: .sources) }
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = CatchSequenceSink(
            sources: sources.makeIterator(), tracked: tracked, observer: observer, cancel: cancel)
        return (sink, sink.run())
    }
}
