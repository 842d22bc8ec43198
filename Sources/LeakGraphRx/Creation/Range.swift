import LeakGraph

/// The integer types `range` counts with (RxSwift's name).
public typealias RxAbstractInteger = FixedWidthInteger

extension ObservableType where Element: RxAbstractInteger {
    /// Emits `count` consecutive integers from `start`, then completes. `count` must not be
    /// negative, and `start + count - 1` must not overflow.
    ///
    /// ```swift
    /// Observable.range(start: 1, count: 3).subscribe(onNext: { print($0) })   // 1, 2, 3
    /// ```
    public static func range(
        start: Element, count: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        precondition(count >= 0, "range: count can't be negative")
        precondition(count == 0 || start <= Element.max - (count - 1), "range: overflow of count")
        return .from((0..<count).lazy.map { start + $0 }, scheduler: scheduler)
    }
}

extension ObservableType {
    /// Emits `initialState`, then each state `iterate` makes from the previous one, while
    /// `condition` holds; a thrown error fails the sequence.
    ///
    /// ```swift
    /// Observable.generate(initialState: 1, condition: { $0 < 10 }, iterate: { $0 * 2 })   // 1, 2, 4, 8
    /// ```
    public static func generate(
        initialState: Element, condition: @escaping (Element) throws -> Bool,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance,
        iterate: @escaping (Element) throws -> Element
    ) -> Observable<Element> {
        Generate(initialState: initialState, condition: condition, iterate: iterate, scheduler: scheduler)
    }

    /// A sequence whose source and resource are made for each subscriber: `resourceFactory`'s
    /// resource is disposed when the subscription ends (terminal event or dispose).
    ///
    /// ```swift
    /// Observable.using({ Connection() }, observableFactory: { $0.rows })
    /// ```
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping () throws -> Resource,
        observableFactory: @escaping (Resource) throws -> Observable<Element>
    ) -> Observable<Element> {
        Using(resourceFactory: resourceFactory, observableFactory: observableFactory)
    }
}

private final class GenerateSink<Observer: ObserverType>: SteppedSink<Observer> {
    typealias Element = Observer.Element
    private let condition: (Element) throws -> Bool
    private let iterate: (Element) throws -> Element
    // Only the step in progress touches them, and steps run one at a time.
    private var state: Element
    private var first = true

    init(
        initialState: Element, condition: @escaping (Element) throws -> Bool,
        iterate: @escaping (Element) throws -> Element, observer: Observer, cancel: Cancelable
    ) {
        state = initialState
        self.condition = condition
        self.iterate = iterate
        super.init(observer: observer, cancel: cancel)
    }

    override func step() -> Bool {
        do {
            if !first { state = try iterate(state) }
            first = false
            guard try condition(state) else {
                forwardTerminalAndDispose(.completed)
                return false
            }
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(state)
        return true
    }
}

private final class Generate<Element>: Producer<Element> {
    private let initialState: Element
    private let condition: (Element) throws -> Bool
    private let iterate: (Element) throws -> Element
    private let scheduler: ImmediateSchedulerType

    init(
        initialState: Element, condition: @escaping (Element) throws -> Bool,
        iterate: @escaping (Element) throws -> Element, scheduler: ImmediateSchedulerType
    ) {
        self.initialState = initialState
        self.condition = condition
        self.iterate = iterate
        self.scheduler = scheduler
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = GenerateSink(
            initialState: initialState, condition: condition, iterate: iterate, observer: observer, cancel: cancel)
        return (sink, sink.start(on: scheduler))
    }
}

private final class UsingSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    func run<Resource: Disposable>(
        resourceFactory: () throws -> Resource, observableFactory: (Resource) throws -> Observable<Element>
    ) -> Disposable {
        var resource: Disposable = Disposables.create()
        do {
            let made = try resourceFactory()
            resource = made
            return Disposables.create(try observableFactory(made).subscribe(self), resource)
        } catch {
            return Disposables.create(Observable<Element>.error(error).subscribe(self), resource)
        }
    }

    func on(_ event: Event<Element>) {
        if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
    }
}

private final class Using<Element, Resource: Disposable>: Producer<Element> {
    private let resourceFactory: () throws -> Resource
    private let observableFactory: (Resource) throws -> Observable<Element>

    init(
        resourceFactory: @escaping () throws -> Resource,
        observableFactory: @escaping (Resource) throws -> Observable<Element>
    ) {
        self.resourceFactory = resourceFactory
        self.observableFactory = observableFactory
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = UsingSink(observer: observer, cancel: cancel)
        return (sink, sink.run(resourceFactory: resourceFactory, observableFactory: observableFactory))
    }
}
