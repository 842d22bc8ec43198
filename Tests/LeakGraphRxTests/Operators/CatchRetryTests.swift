import LeakGraph
import LeakGraphRx
import Testing

/// catch, catch(sequence:), retry and withLatestFrom: RxSwift's event order, and what each
/// leaves alive.
@Suite("catch, retry, withLatestFrom", .serialized)
struct CatchRetryTests {
    @Test("catch continues with the handler's observable; a throwing handler fails the sequence")
    func catchHandler() {
        let recorder = Recorder<Int>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).catch { _ in .of(8, 9) }
            .subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(8), .next(9), .completed])
        let rethrown = Recorder<Int>()
        _ = Observable<Int>.error(TestError()).catch { _ in throw RxError.unknown }.subscribe(rethrown)
        #expect(rethrown.events == [.error("\(RxError.unknown)")])
    }

    @Test("catch(sequence:) moves to the next source on error and fails with the last error")
    func catchSequence() {
        let recorder = Recorder<Int>()
        let failing = Observable.concat(Observable.of(1), Observable<Int>.error(TestError()))
        _ = Observable.catch(sequence: [failing, Observable.of(2)]).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .completed])
        let allFail = Recorder<Int>()
        _ = Observable.catch(sequence: [failing, Observable<Int>.error(RxError.timeout)]).subscribe(allFail)
        #expect(allFail.events == [.next(1), .error("\(RxError.timeout)")])
        let empty = Recorder<Int>()
        _ = Observable.catch(sequence: [Observable<Int>]()).subscribe(empty)
        #expect(empty.events == [.completed])
    }

    @Test("retry(n) subscribes n times in all and forwards the last error; retry() until it completes")
    func retryCounts() {
        let attempts = Log()
        let source = Observable<Int>.create { observer in
            attempts.append("attempt")
            observer.onNext(attempts.entries.count)
            if attempts.entries.count < 3 { observer.onError(TestError()) } else { observer.onCompleted() }
            return Disposables.create()
        }
        let twice = Recorder<Int>()
        _ = source.retry(2).subscribe(twice)
        #expect(twice.events == [.next(1), .next(2), .error("TestError")])
        let forever = Recorder<Int>()
        _ = source.retry().subscribe(forever)
        #expect(forever.events == [.next(3), .completed])
        let none = Recorder<Int>()
        _ = source.retry(0).subscribe(none)
        #expect(none.events == [.completed])
    }

    @Test("retry over a source that fails at once runs in constant stack (100,000 attempts)")
    func retryIsNotRecursive() {
        let recorder = Recorder<Int>()
        _ = Observable<Int>.error(TestError()).retry(100_000).subscribe(recorder)
        #expect(recorder.events == [.error("TestError")])
    }

    @Test("withLatestFrom combines with the latest second element, drops earlier ones, ends with the first")
    func withLatestFrom() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<String>()
        let recorder = Recorder<String>()
        let subscription = first.withLatestFrom(second) { "\($0)\($1)" }.subscribe(recorder)
        first.onNext(1)
        second.onNext("a")
        first.onNext(2)
        second.onNext("b")
        second.onCompleted()
        first.onNext(3)
        first.onCompleted()
        #expect(recorder.events == [.next("2a"), .next("3b"), .completed])
        subscription.dispose()
        let latest = Recorder<String>()
        _ = Observable.of(1).withLatestFrom(Observable.just("x")).subscribe(latest)
        #expect(latest.events == [.next("x"), .completed])
        let failing = Recorder<Int>()
        _ = Observable<Int>.never().withLatestFrom(Observable<Int>.error(TestError())).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("lifecycle of catch, catch(sequence:), retry(n), withLatestFrom")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.catch { _ in .empty() }.subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { subject in
                Observable.catch(sequence: [subject.asObservable(), .empty()]).subscribe(onNext: { _ in })
            })
        expectStandardLifecycle(lifecycleEndings { $0.retry(3).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { $0.withLatestFrom(Observable.just(5)).subscribe(onNext: { _ in }) })
    }

    @Test("a subscription retried forever on a source that never completes is a leaked cycle naming the retry")
    func retryForeverLeaks() {
        let outcome = leakingLifecycle {
            let subject = PublishSubject<Int>()
            _ = subject.retry().subscribe(onNext: { _ in })
            subject.onNext(1)
        }
        #expect(outcome.leakedCycles.count == 1, "\(outcome.dump)")
        let members = outcome.leakedCycles.first.map(outcome.memberTypes) ?? []
        #expect(members.contains("CatchSequenceSink"), "\(members)")
        #expect(members.contains("SinkDisposer"), "\(members)")
    }
}
