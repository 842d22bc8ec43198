import LeakGraph
import LeakGraphRx
import Testing

@Suite("take, take(until:), skip", .serialized)
struct TakeSkipTests {
    @Test("take(n) completes after n elements and disposes the source")
    func take() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = subject.take(2).subscribe(recorder)
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(!subject.hasObservers)
        let none = Recorder<Int>()
        _ = subject.take(0).subscribe(none)
        #expect(none.events == [.completed])
    }

    @Test("take(n) re-entrant: the subscriber feeding the source sees exactly n elements")
    func takeReentrant() {
        let subject = PublishSubject<Int>()
        let log = Log()
        _ = subject.take(3).subscribe(
            onNext: { value in
                log.append("\(value)")
                subject.onNext(value + 1)
            }, onCompleted: { log.append("completed") })
        subject.onNext(1)
        #expect(log.entries == ["1", "2", "3", "completed"])
    }

    @Test("take(until:) completes when the other emits; other completing changes nothing")
    func takeUntil() {
        let source = PublishSubject<Int>()
        let stop = PublishSubject<Void>()
        let recorder = Recorder<Int>()
        _ = source.take(until: stop).subscribe(recorder)
        source.onNext(1)
        stop.onNext(())
        source.onNext(2)
        #expect(recorder.events == [.next(1), .completed])
        #expect(!source.hasObservers)
        #expect(!stop.hasObservers)
        let other = PublishSubject<Void>()
        let second = Recorder<Int>()
        _ = source.take(until: other).subscribe(second)
        other.onCompleted()
        source.onNext(3)
        other.onError(TestError())
        #expect(second.events == [.next(3)])
    }

    @Test("take(until:) forwards the other's error")
    func takeUntilError() {
        let source = PublishSubject<Int>()
        let other = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = source.take(until: other).subscribe(recorder)
        other.onError(TestError())
        #expect(recorder.events == [.error("TestError")])
    }

    @Test("skip(n) drops the first n elements")
    func skip() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 4).skip(2).subscribe(recorder)
        #expect(recorder.events == [.next(3), .next(4), .completed])
    }

    @Test("lifecycle of take, take(until:), skip")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.take(5).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.skip(1).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { $0.take(until: PublishSubject<Void>()).subscribe(onNext: { _ in }) })
        // With the trigger held outside, a dropped subscription is retained by it, not leaked.
        let stop = PublishSubject<Void>()
        let retained = lifecycleEndings { $0.take(until: stop).subscribe(onNext: { _ in }) }.never
        #expect(retained.leakedCycles.isEmpty)
        #expect(!retained.aliveTypes.isEmpty)
        stop.onNext(())
        #expect(liveObjects(in: retained.scope).isEmpty)
        let takeCompletes = lifecycle {
            let subject = PublishSubject<Int>()
            _ = subject.take(1).subscribe(onNext: { _ in })
            subject.onNext(1)
        }
        #expect(takeCompletes.aliveTypes == [])
    }
}
