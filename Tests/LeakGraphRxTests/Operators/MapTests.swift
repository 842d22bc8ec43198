import LeakGraph
import LeakGraphRx
import Testing

@Suite("map", .serialized)
struct MapTests {
    @Test("transforms each element and forwards completion")
    func transforms() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3).map { $0 * 10 }.subscribe(recorder)
        #expect(recorder.events == [.next(10), .next(20), .next(30), .completed])
    }

    @Test("a throwing transform terminates with its error and disposes the source")
    func throwing() {
        let recorder = Recorder<Int>()
        let log = Log()
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onNext(3)
            return Disposables.create { log.append("disposed") }
        }
        _ = source.map { value -> Int in
            if value == 2 { throw TestError() }
            return value
        }.subscribe(recorder)
        #expect(recorder.events == [.next(1), .error("TestError")])
        #expect(log.entries == ["disposed"])
    }

    @Test("forwards the source's error; nothing after it")
    func error() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = subject.map { $0 + 1 }.subscribe(recorder)
        subject.onNext(1)
        subject.onError(TestError())
        subject.onNext(2)
        #expect(recorder.events == [.next(2), .error("TestError")])
    }

    @Test("stops forwarding after dispose")
    func dispose() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        let subscription = subject.map { $0 + 1 }.subscribe(recorder)
        subject.onNext(1)
        subscription.dispose()
        subscription.dispose()
        subject.onNext(2)
        #expect(recorder.events == [.next(2)])
        #expect(!subject.hasObservers)
    }

    @Test("re-entrant: the subscriber may feed the source from inside onNext")
    func reentrant() {
        let subject = PublishSubject<Int>()
        let log = Log()
        let subscription = subject.map { $0 * 2 }.subscribe(onNext: { value in
            log.append("\(value)")
            if value < 8 { subject.onNext(value) }
        })
        subject.onNext(1)
        #expect(log.entries == ["2", "4", "8"])
        subscription.dispose()
    }

    @Test("lifecycle: complete, error and dispose release everything; a dropped never-ending one leaks")
    func lifecycleEndsAsExpected() {
        expectStandardLifecycle(lifecycleEndings { $0.map { $0 + 1 }.subscribe(onNext: { _ in }) })
    }

    @Test("the sink reports active while subscribed; a held disposer keeps nothing else alive after completion")
    func states() {
        nonisolated(unsafe) var subscription: Disposable?
        let subject = PublishSubject<Int>()
        let active = lifecycle { subscription = subject.map { $0 }.subscribe(onNext: { _ in }) }
        #expect(active.alive.first { $0.type.hasPrefix("MapSink") }?.state == .active)
        subscription?.dispose()
        let completed = lifecycle {
            let subject = BehaviorSubject(value: 1)
            subscription = subject.map { $0 }.subscribe(onNext: { _ in })
            subject.onCompleted()
        }
        #expect(completed.aliveTypes == ["SinkDisposer"])
        #expect(completed.cycles.isEmpty)
        subscription = nil
    }
}

@Suite("filter", .serialized)
struct FilterTests {
    @Test("forwards only accepted elements")
    func filters() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 4).filter { $0 % 2 == 0 }.subscribe(recorder)
        #expect(recorder.events == [.next(2), .next(4), .completed])
    }

    @Test("a throwing predicate terminates with its error")
    func throwing() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3).filter { value in
            if value == 2 { throw TestError() }
            return true
        }.subscribe(recorder)
        #expect(recorder.events == [.next(1), .error("TestError")])
    }

    @Test("lifecycle: complete, error and dispose release everything; a dropped never-ending one leaks")
    func lifecycleEndsAsExpected() {
        expectStandardLifecycle(lifecycleEndings { $0.filter { $0 > 0 }.subscribe(onNext: { _ in }) })
    }
}
