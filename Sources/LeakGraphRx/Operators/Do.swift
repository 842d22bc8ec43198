import LeakGraph

extension ObservableType {
    /// Calls the handlers for each event before forwarding it, and `onDispose` when the
    /// subscription ends (terminal event or dispose). A handler that throws sends `.error`.
    ///
    /// ```swift
    /// Observable.of(1).do(onNext: { print("saw", $0) }).subscribe()   // saw 1
    /// ```
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil, onError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Observable<Element> {
        Do(
            source: asObservable(),
            handlers: DoHandlers(onNext: onNext, onError: onError, onCompleted: onCompleted, onDispose: onDispose))
    }
}

private struct DoHandlers<Element> {
    let onNext: ((Element) throws -> Void)?
    let onError: ((Swift.Error) throws -> Void)?
    let onCompleted: (() throws -> Void)?
    let onDispose: (() -> Void)?
}

private final class DoSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let handlers: DoHandlers<Element>

    init(handlers: DoHandlers<Element>, observer: Observer, cancel: Cancelable) {
        self.handlers = handlers
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        do {
            switch event {
            case .next(let element): try handlers.onNext?(element)
            case .error(let error): try handlers.onError?(error)
            case .completed: try handlers.onCompleted?()
            }
        } catch {
            forwardTerminalAndDispose(.error(error))
            return
        }
        if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
    }
}

private final class Do<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let handlers: DoHandlers<Element>

    init(source: Observable<Element>, handlers: DoHandlers<Element>) {
        self.source = source
        self.handlers = handlers
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DoSink(handlers: handlers, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        guard let onDispose = handlers.onDispose else { return (sink, subscription) }
        return (sink, Disposables.create(subscription, Disposables.create(with: onDispose)))
    }
}
