import LeakGraph

extension ObservableType {
    /// Splits the sequence into one group per key: each new key emits a ``GroupedObservable``
    /// that then receives that key's elements. The source stays subscribed while the outer
    /// subscription or any group subscription lives; its end (completion or error) ends every
    /// group, then the outer sequence.
    ///
    /// ```swift
    /// words.groupBy { $0.first! }.flatMap { group in group.map { "\(group.key): \($0)" } }
    /// ```
    public func groupBy<Key: Hashable>(keySelector: @escaping (Element) throws -> Key)
        -> Observable<GroupedObservable<Key, Element>>
    {
        GroupBy(source: asObservable(), keySelector: keySelector)
    }
}

/// The elements of one key of a `groupBy`.
public struct GroupedObservable<Key, Element>: ObservableType {
    /// The key the group's elements share.
    public let key: Key
    private let source: Observable<Element>

    /// A group of `key` whose elements come from `source`.
    public init(key: Key, source: Observable<Element>) {
        self.key = key
        self.source = source
    }

    /// Subscribes `observer` to the group's elements.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The group as an observable.
    public func asObservable() -> Observable<Element> {
        source
    }
}

private final class GroupBySink<Key: Hashable, Element, Observer: ObserverType>: Sink<Observer>, ObserverType
where Observer.Element == GroupedObservable<Key, Element> {
    private let keySelector: (Element) throws -> Key
    private let sourceSubscription = SingleAssignmentDisposable()
    private let refCount: RefCountDisposable
    /// Only touched by the source's events, which the event grammar serialises.
    private var groups: [Key: PublishSubject<Element>] = [:]

    init(keySelector: @escaping (Element) throws -> Key, observer: Observer, cancel: Cancelable) {
        self.keySelector = keySelector
        refCount = RefCountDisposable(disposable: sourceSubscription)
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<Element>) -> Disposable {
        sourceSubscription.setDisposable(source.subscribe(self))
        return refCount
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            let key: Key
            do {
                key = try keySelector(element)
            } catch {
                return fail(error)
            }
            if let group = groups[key] {
                group.onNext(element)
            } else {
                let group = PublishSubject<Element>()
                groups[key] = group
                forwardNext(
                    GroupedObservable(key: key, source: AddRef(source: group.asObservable(), refCount: refCount)))
                group.onNext(element)
            }
        case .error(let error):
            fail(error)
        case .completed:
            for group in groups.values { group.onCompleted() }
            forwardTerminal(.completed)
            sourceSubscription.dispose()
            dispose()
        }
    }

    private func fail(_ error: Swift.Error) {
        for group in groups.values { group.onError(error) }
        forwardTerminal(.error(error))
        sourceSubscription.dispose()
        dispose()
    }
}

private final class GroupBy<Key: Hashable, Element>: Producer<GroupedObservable<Key, Element>> {
    private let source: Observable<Element>
    private let keySelector: (Element) throws -> Key

    init(source: Observable<Element>, keySelector: @escaping (Element) throws -> Key) {
        self.source = source
        self.keySelector = keySelector
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == GroupedObservable<Key, Element> {
        let sink = GroupBySink(keySelector: keySelector, observer: observer, cancel: cancel)
        return (sink, sink.run(source))
    }
}

/// A source whose subscriptions each hold a handle of a ``RefCountDisposable``, so the shared
/// upstream subscription lives while any of them does (the groups of `groupBy`, the windows of
/// `window`).
final class AddRef<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let refCount: RefCountDisposable

    init(source: Observable<Element>, refCount: RefCountDisposable) {
        self.source = source
        self.refCount = refCount
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let handle = refCount.retain()
        let sink = PassThroughSink(observer: observer, cancel: cancel)
        return (sink, Disposables.create(handle, source.subscribe(sink)))
    }
}
