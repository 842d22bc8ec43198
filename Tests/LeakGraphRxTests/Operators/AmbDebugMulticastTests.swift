import LeakGraph
import LeakGraphRx
import Testing

private struct HookProbe: Error {}

@Suite("amb, debug, multicast, combineLatest and zip of collections, Hooks")
struct AmbDebugMulticastTests {
    @Test("amb mirrors the first source to send anything and disposes the others")
    func ambFirstWins() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = Observable.amb([a.asObservable(), b.asObservable()]).subscribe(recorder)
        b.onNext(1)
        #expect(!a.hasObservers)
        a.onNext(2)
        b.onNext(3)
        b.onCompleted()
        #expect(recorder.events == [.next(1), .next(3), .completed])
        let first = Recorder<Int>()
        _ = a.amb(Observable<Int>.never()).subscribe(first)
        a.onCompleted()
        #expect(first.events == [.completed])
    }

    @Test(
        "combineLatest of a collection: arrays of the latest values; an empty collection sends the empty row, then completes"
    )
    func combineLatestCollection() {
        let sources = (0..<3).map { _ in PublishSubject<Int>() }
        let recorder = Recorder<[Int]>()
        _ = Observable.combineLatest(sources).subscribe(recorder)
        sources[0].onNext(1)
        sources[1].onNext(2)
        #expect(recorder.events == [])
        sources[2].onNext(3)
        sources[0].onNext(10)
        for source in sources { source.onCompleted() }
        #expect(recorder.events == [.next([1, 2, 3]), .next([10, 2, 3]), .completed])
        let sum = Recorder<Int>()
        _ = Observable.combineLatest(sources.map { $0.asObservable() }) { $0.reduce(0, +) }.subscribe(sum)
        #expect(sum.events == [.completed])
        let empty = Recorder<[Int]>()
        _ = Observable<Int>.combineLatest([Observable<Int>]()).subscribe(empty)
        #expect(empty.events == [.next([]), .completed])
    }

    @Test("zip of a collection: rows in order; it completes once every source completed")
    func zipCollection() {
        let sources = (0..<3).map { _ in PublishSubject<Int>() }
        let recorder = Recorder<[Int]>()
        _ = Observable.zip(sources).subscribe(recorder)
        sources[0].onNext(1)
        sources[0].onNext(4)
        sources[1].onNext(2)
        sources[2].onNext(3)
        sources[1].onNext(5)
        sources[2].onNext(6)
        sources[0].onCompleted()
        sources[1].onCompleted()
        #expect(recorder.events == [.next([1, 2, 3]), .next([4, 5, 6])])
        sources[2].onCompleted()
        #expect(recorder.events == [.next([1, 2, 3]), .next([4, 5, 6]), .completed])
    }

    @Test("multicast through a given subject, a made subject, and with a selector")
    func multicastForms() {
        let source = PublishSubject<Int>()
        let connectable = source.multicast(ReplaySubject<Int>.create(bufferSize: 1))
        let early = Recorder<Int>()
        _ = connectable.subscribe(early)
        let connection = connectable.connect()
        source.onNext(1)
        let late = Recorder<Int>()
        _ = connectable.subscribe(late)
        #expect(early.elements == [1])
        #expect(late.elements == [1])
        connection.dispose()
        let made = source.multicast(makeSubject: { PublishSubject<Int>() })
        let recorder = Recorder<Int>()
        _ = made.subscribe(recorder)
        let madeConnection = made.connect()
        source.onNext(2)
        madeConnection.dispose()
        #expect(recorder.elements == [2])
        let pairs = Recorder<String>()
        let subscription = Observable.of(1, 2, 3)
            .multicast(
                { PublishSubject<Int>() },
                selector: { shared in Observable.zip(shared, shared.skip(1)) { "\($0)\($1)" } }
            )
            .subscribe(pairs)
        #expect(pairs.elements == ["12", "23"])
        subscription.dispose()
    }

    @Test("multicast through a subject type of one's own, given or made, and with a selector")
    func multicastThroughForeignSubjects() {
        let log = Log()
        let given = Observable.of(1, 2).multicast(LoggingSubject(log: log, name: "given"))
        _ = given.subscribe(onNext: { log.append("a\($0)") })
        _ = given.connect()
        let made = Observable.of(3).multicast(makeSubject: { LoggingSubject(log: log, name: "made") })
        _ = made.subscribe(onNext: { log.append("b\($0)") })
        _ = made.connect()
        _ = Observable.of(4).multicast({ LoggingSubject(log: log, name: "selected") }, selector: { $0.map { $0 * 10 } })
            .subscribe(onNext: { log.append("c\($0)") })
        #expect(log.entries == ["given 1", "a1", "given 2", "a2", "made 3", "b3", "selected 4", "c40"])
    }

    @Test("amb, collection forms and multicast release everything after completion or dispose")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.amb(Observable<Int>.never()).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { Observable.zip([$0.asObservable()]).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { Observable.combineLatest([$0.asObservable()]).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.debug("lifecycle").subscribe(onNext: { _ in }) })
    }

    @Test("Hooks.defaultErrorHandler gets the subscription's call stack when recordCallStackOnError is on")
    func hooksCallStack() {
        let originalHandler = Hooks.defaultErrorHandler
        defer {
            Hooks.defaultErrorHandler = originalHandler
            Hooks.recordCallStackOnError = false
        }
        let received = Log()
        Hooks.defaultErrorHandler = { callStack, error in
            received.append("\(error) with \(callStack.isEmpty ? "no" : "a") call stack")
        }
        Hooks.recordCallStackOnError = true
        _ = Observable<Int>.error(HookProbe()).subscribe(onNext: { _ in })
        // The hooks are process-wide: other tests' unhandled errors may arrive meanwhile.
        #expect(received.entries.filter { $0.hasPrefix("HookProbe") } == ["HookProbe() with a call stack"])
    }
}

/// A subject type of a user's own: logs what it is sent, multicasts through a PublishSubject.
private struct LoggingSubject: SubjectType, ObserverType {
    typealias Element = Int
    let log: Log
    let name: String
    private let subject = PublishSubject<Int>()

    init(log: Log, name: String) {
        self.log = log
        self.name = name
    }

    func on(_ event: Event<Int>) {
        if case .next(let value) = event { log.append("\(name) \(value)") }
        subject.on(event)
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Int {
        subject.subscribe(observer)
    }

    func asObservable() -> Observable<Int> { subject.asObservable() }

    func asObserver() -> LoggingSubject { self }
}
