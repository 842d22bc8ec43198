import LeakGraph

extension ObservableType {
    /// Subscribes and sends every element to `relays`. A relay cannot fail: an error of the
    /// source stops the program in a debug build and is printed in a release build (as RxRelay
    /// does); completion ends the binding.
    ///
    /// ```swift
    /// viewModel.title.bind(to: titleRelay).disposed(by: bag)
    /// ```
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        bind(relays, kind: "publish relay") { relay, element in relay.accept(element) }
    }

    /// ``bind(to:)-(PublishRelay<Element>...)`` to relays of optional elements.
    public func bind(to relays: PublishRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(relays, kind: "publish relay") { relay, element in relay.accept(element) }
    }

    /// Subscribes and sends every element to `relays` (see the publish relay form).
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        bind(relays, kind: "behavior relay") { relay, element in relay.accept(element) }
    }

    /// ``bind(to:)-(BehaviorRelay<Element>...)`` to relays of optional elements.
    public func bind(to relays: BehaviorRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(relays, kind: "behavior relay") { relay, element in relay.accept(element) }
    }

    /// Subscribes and sends every element to `relays` (see the publish relay form).
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        bind(relays, kind: "replay relay") { relay, element in relay.accept(element) }
    }

    /// ``bind(to:)-(ReplayRelay<Element>...)`` to relays of optional elements.
    public func bind(to relays: ReplayRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(relays, kind: "replay relay") { relay, element in relay.accept(element) }
    }

    /// Subscribes `observers` to every event (RxCocoa's `bind(to:)` for observers).
    ///
    /// ```swift
    /// numbers.bind(to: subject).disposed(by: bag)
    /// ```
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element {
        subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// ``bind(to:)-(Observer...)`` to observers of optional elements.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        map { $0 as Element? }.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Subscribes `binder` to the source and returns what it returns.
    ///
    /// ```swift
    /// numbers.bind { $0.subscribe(onNext: { print($0) }) }
    /// ```
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    private func bind<Relay: TrackedObject>(
        _ relays: [Relay], kind: String, accept: @escaping (Relay, Element) -> Void
    ) -> Disposable {
        subscribe(RelayBinding(relays: relays, kind: kind, accept: accept))
    }
}

/// The observer `bind(to:)` subscribes for relays: a tracked object holding them (`relays`
/// edges), so that a binding never disposed shows what it keeps alive.
private final class RelayBinding<Relay: TrackedObject, Element>: TrackedObject, ObserverType {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    private let relays: [Relay]
    private let kind: String
    private let accept: (Relay, Element) -> Void

    init(relays: [Relay], kind: String, accept: @escaping (Relay, Element) -> Void) {
        self.relays = relays
        self.kind = kind
        self.accept = accept
        super.init()
        for relay in relays { addTrackedEdge(to: relay, label: .relays) }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): for relay in relays { accept(relay, element) }
        case .error(let error): bindingFailed("Binding error to \(kind): \(error)")
        case .completed: break
        }
    }
}

/// What RxRelay does with an error bound to a relay (and `Binder` with one bound to it): stop in
/// a debug build, print otherwise.
func bindingFailed(_ message: String) {
    #if DEBUG
        fatalError(message)
    #else
        warn(message)
    #endif
}
