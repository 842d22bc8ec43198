import LeakGraphRx

private let driveOffMainThread = """
    `drive*` was called from a thread other than the main one: a Driver is driven from the main \
    thread (its replayed element must be delivered there).
    """

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// Sends the elements to `observers` (from the main thread).
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return asObservable().subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Sends the elements, as optionals, to `observers`.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return asObservable().map { $0 as Element? }.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Sets every relay of `relays` to each element.
    public func drive(_ relays: BehaviorRelay<Element>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Sets every relay of `relays` to each element, as an optional.
    public func drive(_ relays: BehaviorRelay<Element?>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Sends each element to every relay of `relays`.
    public func drive(_ relays: ReplayRelay<Element>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Sends each element, as an optional, to every relay of `relays`.
    public func drive(_ relays: ReplayRelay<Element?>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// `transformation` applied to the sequence (a binder function of one's own).
    public func drive<Result>(_ transformation: (Observable<Element>) -> Result) -> Result {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return transformation(asObservable())
    }

    /// `with` applied to the sequence, then to `curriedArgument`.
    public func drive<R1, R2>(_ with: (Observable<Element>) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return with(asObservable())(curriedArgument)
    }

    /// Handlers that get `object` (held weakly: once it is gone, nothing is called) with each event.
    public func drive<Object: AnyObject>(
        with object: Object, onNext: ((Object, Element) -> Void)? = nil, onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return asObservable().subscribe(with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Handlers for the elements, the completion and the end of the subscription (a driver cannot
    /// fail).
    public func drive(
        onNext: ((Element) -> Void)? = nil, onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainThread)
        return asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes and ignores the elements.
    public func drive() -> Disposable {
        drive(onNext: nil, onCompleted: nil, onDisposed: nil)
    }
}
