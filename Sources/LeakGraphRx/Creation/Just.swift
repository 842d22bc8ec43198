import LeakGraph

extension ObservableType {
    /// An observable that emits `element` then completes, synchronously, to each subscriber.
    ///
    /// ```swift
    /// Observable.just(1).subscribe { print($0) }   // next(1), completed
    /// ```
    public static func just(_ element: Element) -> Observable<Element> {
        Just(element)
    }

    /// An observable that emits `element` then completes, each event a step on `scheduler`.
    ///
    /// ```swift
    /// Observable.just(1, scheduler: MainScheduler.instance)
    /// ```
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        .from([element], scheduler: scheduler)
    }
}

private final class Just<Element>: Producer<Element> {
    let element: Element

    init(_ element: Element) {
        self.element = element
        super.init()
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        // onNext/onCompleted, not on(.next)/on(.completed): an observer that implements them
        // gets the element and the completion without an `Event` built for each.
        observer.onNext(element)
        observer.onCompleted()
        return Disposables.create()
    }
}
