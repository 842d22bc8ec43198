import LeakGraph
import Synchronization

extension ObservableType {
    /// Combines each element with the latest element of `second` through `resultSelector`;
    /// elements that come before `second` has emitted are dropped. The result completes with
    /// the source; an error of either fails it; `second` completing changes nothing.
    ///
    /// ```swift
    /// taps.withLatestFrom(text) { _, text in text }.subscribe(onNext: { print($0) })
    /// ```
    public func withLatestFrom<Source: ObservableConvertibleType, ResultType>(
        _ second: Source, resultSelector: @escaping (Element, Source.Element) throws -> ResultType
    ) -> Observable<ResultType> {
        WithLatestFrom(first: asObservable(), second: second.asObservable(), resultSelector: resultSelector)
    }

    /// Emits the latest element of `second` each time the source emits (once `second` has
    /// emitted).
    ///
    /// ```swift
    /// taps.withLatestFrom(text).subscribe(onNext: { print($0) })
    /// ```
    public func withLatestFrom<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Source.Element> {
        WithLatestFrom(first: asObservable(), second: second.asObservable(), resultSelector: { $1 })
    }
}

private final class WithLatestFromSink<First, Second, Observer: ObserverType>: SerializingSink<Observer>,
    ObserverType
{
    typealias Element = First
    private let resultSelector: (First, Second) throws -> Observer.Element
    private let latest = Locked<Second?>(nil)
    private let secondSubscription = SingleAssignmentDisposable()

    init(
        resultSelector: @escaping (First, Second) throws -> Observer.Element, observer: Observer, cancel: Cancelable
    ) {
        self.resultSelector = resultSelector
        super.init(observer: observer, cancel: cancel)
        addTrackedEdge(to: secondSubscription, label: .otherSubscription)
    }

    func run(first: Observable<First>, second: Observable<Second>) -> Disposable {
        let secondObserver = ForwardingObserver<WithLatestFromSink, Second>(parent: self) { sink, event in
            sink.secondEvent(event)
        }
        secondSubscription.setDisposable(second.subscribe(secondObserver))
        let firstSubscription = first.subscribe(self)
        return Disposables.create(firstSubscription, secondSubscription)
    }

    func on(_ event: Event<First>) {
        switch event {
        case .next(let element):
            guard let latest = latest.locked({ $0 }) else { return }
            let result: Observer.Element
            do {
                result = try resultSelector(element, latest)
            } catch {
                return serialForward(.error(error))
            }
            serialForward(.next(result))
        case .error(let error): serialForward(.error(error))
        case .completed: serialForward(.completed)
        }
    }

    private func secondEvent(_ event: Event<Second>) {
        switch event {
        case .next(let element):
            // The replaced element is let go of after unlocking: its deinit may send events here.
            let replaced = latest.locked { latest in
                defer { latest = element }
                return latest
            }
            _ = replaced
        case .error(let error): serialForward(.error(error))
        case .completed: secondSubscription.dispose()
        }
    }
}

private final class WithLatestFrom<First, Second, ResultType>: Producer<ResultType> {
    private let first: Observable<First>
    private let second: Observable<Second>
    private let resultSelector: (First, Second) throws -> ResultType

    init(
        first: Observable<First>, second: Observable<Second>,
        resultSelector: @escaping (First, Second) throws -> ResultType
    ) {
        self.first = first
        self.second = second
        self.resultSelector = resultSelector
        super.init()
        addTrackedEdge(to: first, label: .source)
        addTrackedEdge(to: second, label: .sources)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == ResultType {
        let sink = WithLatestFromSink<First, Second, Observer>(
            resultSelector: resultSelector, observer: observer, cancel: cancel)
        return (sink, sink.run(first: first, second: second))
    }
}
