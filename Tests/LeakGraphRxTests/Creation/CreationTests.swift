import LeakGraph
import LeakGraphRx
import Testing

@Suite("creation", .serialized)
struct CreationTests {
    @Test("just emits one element then completes")
    func just() {
        let recorder = Recorder<Int>()
        _ = Observable.just(7).subscribe(recorder)
        #expect(recorder.events == [.next(7), .completed])
    }

    @Test("of, from(array) and from(sequence) emit in order then complete")
    func sequences() {
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        let c = Recorder<Int>()
        _ = Observable.of(1, 2).subscribe(a)
        _ = Observable.from([3, 4]).subscribe(b)
        _ = Observable.from(5...6).subscribe(c)
        #expect(a.events == [.next(1), .next(2), .completed])
        #expect(b.events == [.next(3), .next(4), .completed])
        #expect(c.events == [.next(5), .next(6), .completed])
    }

    @Test("disposing during a synchronous sequence stops it")
    func disposeDuringSequence() {
        let log = Log()
        _ = Observable.from(1...1_000_000).take(2).subscribe(onNext: { log.append("\($0)") })
        #expect(log.entries == ["1", "2"])
    }

    @Test("empty completes, never does nothing, error fails")
    func emptyNeverError() {
        let empty = Recorder<Int>()
        let never = Recorder<Int>()
        let error = Recorder<Int>()
        _ = Observable<Int>.empty().subscribe(empty)
        _ = Observable<Int>.never().subscribe(never)
        _ = Observable<Int>.error(TestError()).subscribe(error)
        #expect(empty.events == [.completed])
        #expect(never.events == [])
        #expect(error.events == [.error("TestError")])
    }

    @Test("deferred calls its factory per subscriber; a thrown error becomes .error")
    func deferred() {
        let log = Log()
        let deferred = Observable<Int>.deferred {
            log.append("factory")
            return Observable.just(1)
        }
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        _ = deferred.subscribe(a)
        _ = deferred.subscribe(b)
        #expect(log.entries == ["factory", "factory"])
        #expect(a.events == [.next(1), .completed])
        let failing = Recorder<Int>()
        _ = Observable<Int>.deferred { throw TestError() }.subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("create: nothing after a terminal event; the terminal event disposes the returned disposable")
    func createGrammar() {
        let recorder = Recorder<Int>()
        let log = Log()
        _ = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)
            observer.onError(TestError())
            return Disposables.create { log.append("disposed") }
        }.subscribe(recorder)
        #expect(recorder.events == [.next(1), .completed])
        #expect(log.entries == ["disposed"])
    }

    @Test("create: dispose runs the returned disposable once")
    func createDispose() {
        let log = Log()
        let subscription = Observable<Int>.create { _ in Disposables.create { log.append("disposed") } }
            .subscribe(onNext: { _ in })
        subscription.dispose()
        subscription.dispose()
        #expect(log.entries == ["disposed"])
    }

    @Test("create lifecycle: complete, error, dispose release everything; never leaks the sink cycle")
    func createLifecycle() {
        let completed = lifecycle {
            _ = Observable<Int>.create { observer in
                observer.onCompleted()
                return Disposables.create()
            }.subscribe(onNext: { _ in })
        }
        #expect(completed.aliveTypes == [])
        let errored = lifecycle {
            _ = Observable<Int>.create { observer in
                observer.onError(TestError())
                return Disposables.create()
            }.subscribe(onError: { _ in })
        }
        #expect(errored.aliveTypes == [])
        let disposed = lifecycle {
            Observable<Int>.create { _ in Disposables.create() }.subscribe(onNext: { _ in }).dispose()
        }
        #expect(disposed.aliveTypes == [])
        let never = leakingLifecycle {
            _ = Observable<Int>.create { _ in Disposables.create() }.subscribe(onNext: { _ in })
        }
        #expect(never.leakedCycles.count == 1)
        #expect(never.leakedCycles.first.map(never.memberTypes) == ["AnonymousObservableSink", "SinkDisposer"])
        #expect(never.aliveTypes == ["AnonymousObservableSink", "AnonymousObserver", "SinkDisposer"])
    }

    @Test("just, of, empty, error and deferred leave nothing alive")
    func creationLifecycle() {
        let outcome = lifecycle {
            _ = Observable.just(1).subscribe(onNext: { _ in })
            _ = Observable.of(1, 2).subscribe(onNext: { _ in })
            _ = Observable<Int>.empty().subscribe(onNext: { _ in })
            _ = Observable<Int>.never().subscribe(onNext: { _ in })
            _ = Observable<Int>.error(TestError()).subscribe(onError: { _ in })
            _ = Observable.deferred { Observable.just(1) }.subscribe(onNext: { _ in })
        }
        #expect(outcome.aliveTypes == [])
    }

    @Test("range emits count consecutive integers; an empty range only completes")
    func range() {
        let recorder = Recorder<Int>()
        _ = Observable.range(start: 3, count: 3).subscribe(recorder)
        #expect(recorder.events == [.next(3), .next(4), .next(5), .completed])
        let empty = Recorder<UInt8>()
        _ = Observable<UInt8>.range(start: 250, count: 0).subscribe(empty)
        #expect(empty.events == [.completed])
        let top = Recorder<UInt8>()
        _ = Observable<UInt8>.range(start: 254, count: 2).subscribe(top)
        #expect(top.events == [.next(254), .next(255), .completed])
    }

    @Test("generate emits states while the condition holds; take stops it early; a throw fails it")
    func generate() {
        let recorder = Recorder<Int>()
        _ = Observable.generate(initialState: 1, condition: { $0 < 10 }, iterate: { $0 * 2 }).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .next(4), .next(8), .completed])
        let failing = Recorder<Int>()
        _ = Observable.generate(initialState: 1, condition: { _ in true }, iterate: { _ in throw TestError() })
            .subscribe(failing)
        #expect(failing.events == [.next(1), .error("TestError")])
    }

    @Test("using disposes its resource when the subscription ends, and a failing factory fails the sequence")
    func using() {
        let log = Log()
        let recorder = Recorder<Int>()
        _ = Observable.using(
            { TestResource { log.append("resource disposed") } },
            observableFactory: { _ in Observable.of(1, 2) }
        ).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(log.entries == ["resource disposed"])
        let failing = Recorder<Int>()
        _ = Observable<Int>.using(
            { () throws -> TestResource in throw TestError() }, observableFactory: { _ in .just(1) }
        ).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
        let held = Log()
        let subscription = Observable<Int>.using(
            { TestResource { held.append("disposed") } }, observableFactory: { _ in .never() }
        ).subscribe(onNext: { _ in })
        #expect(held.entries == [])
        subscription.dispose()
        #expect(held.entries == ["disposed"])
    }
}

/// A resource for `using`: runs its closure when disposed.
private final class TestResource: Disposable {
    private let onDispose: () -> Void
    init(_ onDispose: @escaping () -> Void) { self.onDispose = onDispose }
    func dispose() { onDispose() }
}
