import LeakGraph

/// Whether `take(until:behavior:)` and `take(while:behavior:)` also emit the element that
/// ends the sequence.
public enum TakeBehavior: Sendable {
    /// Emit the element that ends the sequence, then complete.
    case inclusive
    /// Complete without emitting the element that ends the sequence.
    case exclusive
}

extension ObservableType {
    /// Emits elements until `predicate` holds for one, then completes (emitting that element
    /// too with `.inclusive`); a thrown error terminates the sequence.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3, 4).take(until: { $0 == 3 }).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public func take(until predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive)
        -> Observable<Element>
    {
        TakeUntilPredicate(source: asObservable(), behavior: behavior, predicate: predicate)
    }

    /// Emits elements while `predicate` holds, then completes (emitting the first element that
    /// fails it too with `.inclusive`).
    ///
    /// ```swift
    /// Observable.of(1, 2, 3, 1).take(while: { $0 < 3 }).subscribe(onNext: { print($0) })   // 1, 2
    /// ```
    public func take(while predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive)
        -> Observable<Element>
    {
        take(until: { try !predicate($0) }, behavior: behavior)
    }

    /// RxSwift 5's name of ``take(until:)-(ObservableType)``.
    @available(*, deprecated, renamed: "take(until:)")
    public func takeUntil<Other: ObservableType>(_ other: Other) -> Observable<Element> {
        take(until: other)
    }

    /// RxSwift 5's name of ``take(until:behavior:)``.
    @available(*, deprecated, renamed: "take(until:behavior:)")
    public func takeUntil(_ behavior: TakeBehavior, predicate: @escaping (Element) throws -> Bool)
        -> Observable<Element>
    {
        take(until: predicate, behavior: behavior)
    }

    /// RxSwift 5's name of ``take(while:behavior:)``.
    @available(*, deprecated, renamed: "take(while:)")
    public func takeWhile(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        take(until: { try !predicate($0) }, behavior: .exclusive)
    }
}

private final class TakeUntilPredicateSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let predicate: (Element) throws -> Bool
    private let behavior: TakeBehavior
    /// Unchecked exclusivity: events come one at a time (the event grammar), which already
    /// serialises every access; the dynamic check cost more than the rest of the event.
    @exclusivity(unchecked) private var running = true

    init(predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior, observer: Observer, cancel: Cancelable)
    {
        self.predicate = predicate
        self.behavior = behavior
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: Element) {
        guard running else { return }
        do {
            running = try !predicate(element)
        } catch {
            return forwardError(error)
        }
        if running {
            forwardNext(element)
        } else {
            if behavior == .inclusive { forwardNext(element) }
            forwardCompleted()
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error, .completed: forwardTerminalAndDispose(event)
        }
    }
}

private final class TakeUntilPredicate<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let behavior: TakeBehavior
    private let predicate: (Element) throws -> Bool

    init(source: Observable<Element>, behavior: TakeBehavior, predicate: @escaping (Element) throws -> Bool) {
        self.source = source
        self.behavior = behavior
        self.predicate = predicate
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TakeUntilPredicateSink(predicate: predicate, behavior: behavior, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
