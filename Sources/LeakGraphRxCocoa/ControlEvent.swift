import LeakGraphRx

/// A sequence of events of a user interface element: no initial value, never fails, subscribed
/// on the main thread (RxCocoa's trait, usable for controls of any toolkit).
public protocol ControlEventType: ObservableType {
    /// `self` as a control event.
    func asControlEvent() -> ControlEvent<Element>
}

/// A control's events (`button.rx.tap`), as RxCocoa has them.
///
/// ```swift
/// let taps = ControlEvent(events: tapRelay.asObservable())
/// taps.asSignal().emit(onNext: { save() }).disposed(by: bag)
/// ```
public struct ControlEvent<PropertyType>: ControlEventType {
    /// The event type.
    public typealias Element = PropertyType

    let events: Observable<PropertyType>

    /// The events of `events`, subscribed to on the main thread.
    public init<Events: ObservableType>(events: Events) where Events.Element == Element {
        self.events = events.subscribe(on: ConcurrentMainScheduler.instance)
    }

    /// Subscribes `observer` to the events.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        events.subscribe(observer)
    }

    /// The events as an observable.
    public func asObservable() -> Observable<Element> { events }

    /// `self`.
    public func asControlEvent() -> ControlEvent<Element> { self }

    /// The events as an ``Infallible``.
    public func asInfallible() -> Infallible<Element> { asInfallible(onErrorFallbackTo: .empty()) }
}

extension ControlEvent {
    /// The events as a driver.
    public func asDriver() -> Driver<Element> {
        asDriver { _ in .empty() }
    }

    /// The events as a signal.
    public func asSignal() -> Signal<Element> {
        asSignal { _ in .empty() }
    }
}

/// A property of a user interface element: its value now and the user's changes (programmatic
/// changes are not sent), never fails, subscribed on the main thread; values sent to it set the
/// property.
public protocol ControlPropertyType: ObservableType, ObserverType {
    /// `self` as a control property.
    func asControlProperty() -> ControlProperty<Element>
}

/// A control's property (`textField.rx.text`), as RxCocoa has it.
public struct ControlProperty<PropertyType>: ControlPropertyType {
    /// The property's type.
    public typealias Element = PropertyType

    let values: Observable<PropertyType>
    let valueSink: AnyObserver<PropertyType>

    /// The property whose values `values` sends (subscribed on the main thread) and which
    /// `valueSink` sets.
    public init<Values: ObservableType, Sink: ObserverType>(values: Values, valueSink: Sink)
    where Element == Values.Element, Element == Sink.Element {
        self.values = values.subscribe(on: ConcurrentMainScheduler.instance)
        self.valueSink = valueSink.asObserver()
    }

    /// Subscribes `observer` to the values.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        values.subscribe(observer)
    }

    /// The changes after the current value.
    public var changed: ControlEvent<PropertyType> { ControlEvent(events: values.skip(1)) }

    /// The values as an observable.
    public func asObservable() -> Observable<Element> { values }

    /// `self`.
    public func asControlProperty() -> ControlProperty<Element> { self }

    /// Sets the property to each element; an error is a programming error in a binding (it stops
    /// a debug build, and is printed in a release one).
    public func on(_ event: Event<Element>) {
        switch event {
        case .error(let error):
            assertionFailure("Binding error: \(error)")
            print("Binding error: \(error)")
        case .next, .completed:
            valueSink.on(event)
        }
    }
}

extension ControlPropertyType where Element == String? {
    /// The text property with nil read as "".
    public var orEmpty: ControlProperty<String> {
        let original: ControlProperty<String?> = asControlProperty()
        let values: Observable<String> = original.values.map { $0 ?? "" }
        let valueSink: AnyObserver<String> = original.valueSink.mapObserver { $0 }
        return ControlProperty<String>(values: values, valueSink: valueSink)
    }
}

extension ControlProperty {
    /// The property as a driver.
    public func asDriver() -> Driver<Element> {
        asDriver { _ in .empty() }
    }
}
