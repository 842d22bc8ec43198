import LeakGraph
import Synchronization

// On the protocol, as in RxSwift: `Self.create` in an extension of `ObservableType` compiles too.
extension ObservableType {
    /// An observable that runs `subscribe` for each subscriber.
    ///
    /// The closure receives the subscriber as an ``AnyObserver`` and returns what to dispose when
    /// the subscription ends. Events after a terminal event are ignored; a terminal event
    /// disposes the returned disposable.
    ///
    /// ```swift
    /// let numbers = Observable<Int>.create { observer in
    ///     observer.onNext(1)
    ///     observer.onCompleted()
    ///     return Disposables.create()
    /// }
    /// ```
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

private final class AnonymousObservableSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    func on(_ event: Event<Element>) {
        switch event {
        case .next: forwardOn(event)
        case .error, .completed: forwardTerminalAndDispose(event)
        }
    }

    func run(_ parent: AnonymousObservable<Element>) -> Disposable {
        parent.subscribeHandler(AnyObserver(self))
    }
}

private final class AnonymousObservable<Element>: Producer<Element> {
    let subscribeHandler: (AnyObserver<Element>) -> Disposable

    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = AnonymousObservableSink(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink, subscription)
    }
}
