import LeakGraph
import Synchronization

/// An observable that subscribes to its source only when ``connect()`` is called, and
/// multicasts the source's events to its subscribers through a subject.
///
/// ```swift
/// let published = Observable.of(1, 2).publish()
/// _ = published.subscribe(onNext: { print($0) })
/// _ = published.connect()   // 1, 2
/// ```
public class ConnectableObservable<Element>: Observable<Element>, ConnectableObservableType {
    override init(label: String? = nil) {
        super.init(label: label)
    }

    /// Subscribes the subject to the source; returns the connection (disposing it
    /// disconnects). Connecting again while connected returns the same connection.
    public func connect() -> Disposable {
        fatalError("ConnectableObservable.connect is abstract")
    }
}

/// An observable that starts its work only when connected (``ConnectableObservable`` and
/// connectable types of your own).
public protocol ConnectableObservableType: ObservableType {
    /// Starts the work; disposing the result stops it.
    func connect() -> Disposable
}

extension ConnectableObservableType {
    /// Connects when the first subscriber arrives and disconnects when the last one leaves.
    public func refCount() -> Observable<Element> {
        if let own = self as? ConnectableObservable<Element> { return own.refCount() }
        return ConnectableForwarder(self).refCount()
    }
}

/// Another module's connectable type as a ``ConnectableObservable``, for `refCount()`.
private final class ConnectableForwarder<Source: ConnectableObservableType>: ConnectableObservable<Source.Element> {
    private let source: Source

    init(_ source: Source) {
        self.source = source
        super.init()
    }

    override func connect() -> Disposable { source.connect() }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }
}

extension ObservableType {
    /// A connectable observable multicasting through a ``PublishSubject``: subscribers receive
    /// the events sent after they subscribed. Each connection has a subject of its own, so a
    /// connection after the source ended starts afresh.
    public func publish() -> ConnectableObservable<Element> {
        ConnectableObservableAdapter(source: asObservable()) { PublishSubject<Element>() }
    }

    /// A connectable observable multicasting through a ``ReplaySubject`` of `bufferSize`:
    /// subscribers first receive the last `bufferSize` elements of the current connection.
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        ConnectableObservableAdapter(source: asObservable()) { ReplaySubject<Element>.create(bufferSize: bufferSize) }
    }

    /// A connectable observable multicasting through an unbounded ``ReplaySubject``: subscribers
    /// first receive every element sent since the current connection began.
    public func replayAll() -> ConnectableObservable<Element> {
        ConnectableObservableAdapter(source: asObservable()) { ReplaySubject<Element>.createUnbounded() }
    }

    /// A connectable observable multicasting through the subjects `makeSubject` makes: one per
    /// connection, so a reconnection after the source ended starts afresh.
    ///
    /// ```swift
    /// let shared = source.multicast(makeSubject: { PublishSubject<Int>() })
    /// ```
    public func multicast<Subject: SubjectType & ObserverType & TrackedObject>(
        makeSubject: @escaping () -> Subject
    ) -> ConnectableObservable<Element> where Subject.Element == Element {
        ConnectableObservableAdapter(source: asObservable(), makeSubject: makeSubject)
    }

    /// A connectable observable multicasting through `subject` (LeakGraphRx's subjects).
    ///
    /// ```swift
    /// let shared = source.multicast(ReplaySubject<Int>.create(bufferSize: 1))
    /// shared.subscribe(onNext: { print($0) })
    /// shared.connect()
    /// ```
    public func multicast<Subject: SubjectType & ObserverType & TrackedObject>(_ subject: Subject)
        -> ConnectableObservable<Element> where Subject.Element == Element
    {
        ConnectableObservableAdapter(source: asObservable(), subject: subject)
    }

    /// For each subscription: a subject from `subjectSelector`, the sequence `selector` makes of
    /// the source multicast through it, subscribed and then connected. Disposing the subscription
    /// disconnects.
    ///
    /// ```swift
    /// source.multicast({ PublishSubject<Int>() }, selector: { shared in Observable.zip(shared, shared.skip(1)) })
    /// ```
    public func multicast<Subject: SubjectType & ObserverType & TrackedObject, Result>(
        _ subjectSelector: @escaping () throws -> Subject,
        selector: @escaping (Observable<Subject.Element>) throws -> Observable<Result>
    ) -> Observable<Result> where Subject.Element == Element {
        let source = asObservable()
        return Observable<Result>.create { observer in
            do {
                let connectable = source.multicast(try subjectSelector())
                let subscription = try selector(connectable.asObservable()).subscribe(observer)
                return Disposables.create(subscription, connectable.connect())
            } catch {
                observer.onError(error)
                return Disposables.create()
            }
        }
    }
}

extension ObservableType {
    /// ``multicast(makeSubject:)`` through subjects of one's own (any ``SubjectType``): each is
    /// wrapped in a tracked forwarder that holds it (`subject` edge).
    public func multicast<Subject: SubjectType>(makeSubject: @escaping () -> Subject) -> ConnectableObservable<Element>
    where Subject.Observer.Element == Element, Subject.Element == Element {
        ConnectableObservableAdapter(source: asObservable()) { ForeignSubject(makeSubject()) }
    }

    /// `multicast(_:)` through a subject of one's own (any ``SubjectType``).
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Element>
    where Subject.Observer.Element == Element, Subject.Element == Element {
        ConnectableObservableAdapter(source: asObservable(), subject: ForeignSubject(subject))
    }

    /// ``multicast(_:selector:)`` through subjects of one's own (any ``SubjectType``).
    public func multicast<Subject: SubjectType, Result>(
        _ subjectSelector: @escaping () throws -> Subject,
        selector: @escaping (Observable<Subject.Element>) throws -> Observable<Result>
    ) -> Observable<Result> where Subject.Observer.Element == Element, Subject.Element == Element {
        multicast({ ForeignSubject(try subjectSelector()) }, selector: selector)
    }
}

/// A subject of another module as the tracked subject a connectable observable multicasts
/// through: events go to its observer side, subscriptions to it.
private final class ForeignSubject<Base: SubjectType>: TrackedObject, SubjectType, ObserverType
where Base.Observer.Element == Base.Element {
    typealias Element = Base.Element
    private let base: Base
    private let observer: Base.Observer

    init(_ base: Base) {
        self.base = base
        observer = base.asObserver()
        super.init()
        if type(of: base as Any) is AnyClass { LeakGraph.addEdge(from: self, to: base as AnyObject, label: "subject") }
    }

    func on(_ event: Event<Element>) { observer.on(event) }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        base.subscribe(observer)
    }

    func asObservable() -> Observable<Element> { base.asObservable() }

    func asObserver() -> ForeignSubject<Base> { self }
}

/// One connection of a connectable observable to its source: forwards the source's events into
/// the subject; a terminal event or `dispose()` disconnects it. A terminal event disconnects
/// first and is delivered after, as RxSwift does: a subscriber that reconnects on completion
/// gets a new connection (and a new subject), not the one that is ending.
final class Connection<Subject: TrackedObject & ObserverType & ObservableType>: TrackedObject, ObserverType,
    Cancelable
{
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    typealias Element = Subject.Element
    private struct State {
        var parent: ConnectableObservableAdapter<Subject>?
        var subscription: Disposable?
        var disposed = false
    }

    private let state: Locked<State>
    private let subject: Subject

    init(parent: ConnectableObservableAdapter<Subject>, subject: Subject) {
        self.state = Locked(State(parent: parent))
        self.subject = subject
        super.init()
        addTrackedEdge(to: parent, label: .parent)
        addTrackedEdge(to: subject, label: .observer)
    }

    var isDisposed: Bool { state.locked { $0.disposed } }

    /// Stores the source subscription (or disposes it, when already disconnected).
    func setSubscription(_ subscription: Disposable) {
        let disposeNow = state.locked { state -> Bool in
            if state.disposed { return true }
            state.subscription = subscription
            if let tracked = subscription.trackedObject { addTrackedEdge(to: tracked, label: .subscription) }
            return false
        }
        if disposeNow { subscription.dispose() }
    }

    func on(_ event: Event<Element>) {
        if isDisposed { return }
        if event.isStopEvent { dispose() }
        subject.on(event)
    }

    func dispose() {
        let (parent, subscription) = state.locked { state -> (ConnectableObservableAdapter<Subject>?, Disposable?) in
            guard !state.disposed else { return (nil, nil) }
            state.disposed = true
            let taken = (state.parent, state.subscription)
            state.parent = nil
            state.subscription = nil
            removeTrackedEdges(label: .parent)
            removeTrackedEdges(label: .subscription)
            return taken
        }
        parent?.disconnect(self)
        subscription?.dispose()
    }
}

/// The connectable observable of `publish`, `replay` and `multicast`: one subject per
/// connection, made when the first subscriber or the connection needs it and forgotten when the
/// connection ends; `multicast(_:)` multicasts through the one subject it was given, always.
final class ConnectableObservableAdapter<Subject: TrackedObject & ObserverType & ObservableType>:
    ConnectableObservable<Subject.Element>
{
    private struct State {
        var subject: Subject?
        var connection: Connection<Subject>?
    }

    private let source: Observable<Subject.Element>
    /// The subject of `multicast(_:)`, for every connection (held as a field, not captured by a
    /// closure: the edge to it is declared).
    private let fixedSubject: Subject?
    /// Makes one subject per connection (`publish`, `replay`, `multicast(makeSubject:)`).
    private let makeSubject: (() -> Subject)?
    private let state = Locked(State())

    init(source: Observable<Subject.Element>, makeSubject: @escaping () -> Subject) {
        self.source = source
        self.fixedSubject = nil
        self.makeSubject = makeSubject
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    init(source: Observable<Subject.Element>, subject: Subject) {
        self.source = source
        self.fixedSubject = subject
        self.makeSubject = nil
        super.init()
        addTrackedEdge(to: source, label: .source)
        addTrackedEdge(to: subject, label: .subject)
    }

    /// The current subject, made on first use (after a disconnection, a new one).
    private func lazySubject() -> Subject {
        if let fixedSubject { return fixedSubject }
        if let subject = state.locked({ $0.subject }) { return subject }
        let made = makeSubject!()
        return state.locked { state in
            if let subject = state.subject { return subject }
            state.subject = made
            addTrackedEdge(to: made, label: .subject)
            return made
        }
    }

    override func connect() -> Disposable {
        let subject = lazySubject()
        let (connection, isNew) = state.locked { state -> (Connection<Subject>, Bool) in
            if let connection = state.connection { return (connection, false) }
            let connection = Connection(parent: self, subject: subject)
            state.connection = connection
            addTrackedEdge(to: connection, label: .connection)
            return (connection, true)
        }
        if isNew { connection.setSubscription(source.subscribe(connection)) }
        return connection
    }

    /// Forgets `connection` and the subject it fed (the next connection gets a new subject
    /// from `makeSubject`).
    func disconnect(_ connection: Connection<Subject>) {
        let dropped = state.locked { state -> (Connection<Subject>?, Subject?) in
            guard state.connection === connection else { return (nil, nil) }
            let dropped = (state.connection, state.subject)
            state.connection = nil
            state.subject = nil
            removeTrackedEdges(label: .connection)
            // The subject of `multicast(_:)` stays for the next connection.
            if fixedSubject == nil { removeTrackedEdges(label: .subject) }
            return dropped
        }
        _ = dropped
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        lazySubject().subscribe(observer)
    }
}
