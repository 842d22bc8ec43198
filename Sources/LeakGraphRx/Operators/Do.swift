import LeakGraph

extension ObservableType {
    /// Calls the handlers for each event before forwarding it (`on…`) and after (`after…`),
    /// `onSubscribe` / `onSubscribed` around subscribing, and `onDispose` when the subscription
    /// ends (terminal event or dispose). A handler that throws sends `.error`.
    ///
    /// ```swift
    /// Observable.of(1).do(onNext: { print("saw", $0) }).subscribe()   // saw 1
    /// ```
    @inlinable
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil, afterNext: ((Element) throws -> Void)? = nil,
        onError: ((Swift.Error) throws -> Void)? = nil, afterError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil, afterCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil, onSubscribed: (() -> Void)? = nil, onDispose: (() -> Void)? = nil
    ) -> Observable<Element> {
        Do(
            source: asObservable(),
            handlers: DoHandlers(
                onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
                onCompleted: onCompleted, afterCompleted: afterCompleted, onSubscribe: onSubscribe,
                onSubscribed: onSubscribed, onDispose: onDispose))
    }
}

// Usable from inline with `Do`: the operator is inlined and specialised in the caller, whose
// concrete `Do<A>` then needs no generic metadata lookup per call (~500 instructions).
@usableFromInline
struct DoHandlers<Element> {
    let onNext: ((Element) throws -> Void)?
    let afterNext: ((Element) throws -> Void)?
    let onError: ((Swift.Error) throws -> Void)?
    let afterError: ((Swift.Error) throws -> Void)?
    let onCompleted: (() throws -> Void)?
    let afterCompleted: (() throws -> Void)?
    let onSubscribe: (() -> Void)?
    let onSubscribed: (() -> Void)?
    let onDispose: (() -> Void)?

    @usableFromInline
    init(
        onNext: ((Element) throws -> Void)?, afterNext: ((Element) throws -> Void)?,
        onError: ((Swift.Error) throws -> Void)?, afterError: ((Swift.Error) throws -> Void)?,
        onCompleted: (() throws -> Void)?, afterCompleted: (() throws -> Void)?, onSubscribe: (() -> Void)?,
        onSubscribed: (() -> Void)?, onDispose: (() -> Void)?
    ) {
        self.onNext = onNext
        self.afterNext = afterNext
        self.onError = onError
        self.afterError = afterError
        self.onCompleted = onCompleted
        self.afterCompleted = afterCompleted
        self.onSubscribe = onSubscribe
        self.onSubscribed = onSubscribed
        self.onDispose = onDispose
    }

    func before(_ event: Event<Element>) throws {
        switch event {
        case .next(let element): try onNext?(element)
        case .error(let error): try onError?(error)
        case .completed: try onCompleted?()
        }
    }

    func after(_ event: Event<Element>) throws {
        switch event {
        case .next(let element): try afterNext?(element)
        case .error(let error): try afterError?(error)
        case .completed: try afterCompleted?()
        }
    }
}

private final class DoSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let handlers: DoHandlers<Element>

    init(handlers: DoHandlers<Element>, observer: Observer, cancel: Cancelable) {
        self.handlers = handlers
        super.init(observer: observer, cancel: cancel)
    }

    /// As RxSwift: the handler, the event, the after-handler, and only then the disposal of a
    /// terminated subscription; a thrown error is forwarded instead (ignored once terminated).
    /// The element path reads the two handlers it needs, not the whole set (copying the set
    /// retained nine closures per element).
    func onNext(_ element: Element) {
        do {
            if let onNext = handlers.onNext { try onNext(element) }
            forwardNext(element)
            if let afterNext = handlers.afterNext { try afterNext(element) }
        } catch {
            forwardError(error)
        }
    }

    func on(_ event: Event<Element>) {
        if case .next(let element) = event { return onNext(element) }
        do {
            try handlers.before(event)
            forwardOn(event)
            try handlers.after(event)
            if event.isStopEvent { dispose() }
        } catch {
            forwardTerminalAndDispose(.error(error))
        }
    }
}

@usableFromInline
final class Do<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let handlers: DoHandlers<Element>

    @usableFromInline
    init(source: Observable<Element>, handlers: DoHandlers<Element>) {
        self.source = source
        self.handlers = handlers
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        handlers.onSubscribe?()
        let sink = DoSink(handlers: handlers, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        handlers.onSubscribed?()
        guard let onDispose = handlers.onDispose else { return (sink, subscription) }
        return (sink, Disposables.create(subscription, Disposables.create(with: onDispose)))
    }
}
