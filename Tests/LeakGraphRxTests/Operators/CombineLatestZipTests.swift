import LeakGraph
import LeakGraphRx
import Testing

@Suite("combineLatest, zip", .serialized)
struct CombineLatestZipTests {
    @Test("combineLatest emits once every source has emitted, then on each element")
    func combineLatest() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<String>()
        let recorder = Recorder<String>()
        _ = Observable.combineLatest(a, b) { "\($0)\($1)" }.subscribe(recorder)
        a.onNext(1)
        a.onNext(2)
        b.onNext("x")
        a.onNext(3)
        b.onNext("y")
        a.onCompleted()
        b.onNext("z")
        b.onCompleted()
        #expect(recorder.events == [.next("2x"), .next("3x"), .next("3y"), .next("3z"), .completed])
    }

    @Test("combineLatest of three, tuple form")
    func combineLatestTuple() {
        let log = Log()
        _ = Observable.combineLatest(Observable.just(1), Observable.just("a"), Observable.just(true))
            .subscribe(onNext: { log.append("\($0.0)\($0.1)\($0.2)") }, onCompleted: { log.append("completed") })
        #expect(log.entries == ["1atrue", "completed"])
        let pairs = Log()
        _ = Observable.combineLatest(Observable.just(1), Observable.of(2, 3))
            .subscribe(onNext: { pairs.append("\($0.0)\($0.1)") })
        #expect(pairs.entries == ["12", "13"])
    }

    @Test(
        "combineLatest, as RxSwift: a source completing without emitting ends it at the next element of another; errors terminate"
    )
    func combineLatestEdges() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = Observable.combineLatest(a, b) { $0 + $1 }.subscribe(recorder)
        a.onNext(1)
        b.onCompleted()
        #expect(recorder.events == [])
        #expect(a.hasObservers)
        a.onNext(2)
        #expect(recorder.events == [.completed])
        #expect(!a.hasObservers)
        let failing = Recorder<Int>()
        _ = Observable.combineLatest(Observable.just(1), Observable<Int>.error(TestError())) { $0 + $1 }
            .subscribe(failing)
        #expect(failing.events == [.error("TestError")])
        let throwing = Recorder<Int>()
        _ = Observable.combineLatest(Observable.just(1), Observable.just(2)) { _, _ -> Int in throw TestError() }
            .subscribe(throwing)
        #expect(throwing.events == [.error("TestError")])
    }

    @Test("zip pairs elements by index and, as RxSwift, completes only once every source completed")
    func zip() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<String>()
        let recorder = Recorder<String>()
        _ = Observable.zip(a, b) { "\($0)\($1)" }.subscribe(recorder)
        a.onNext(1)
        a.onNext(2)
        a.onNext(3)
        b.onNext("x")
        a.onCompleted()
        b.onNext("y")
        #expect(recorder.events == [.next("1x"), .next("2y")])
        b.onNext("z")
        #expect(recorder.events == [.next("1x"), .next("2y"), .next("3z")])
        b.onNext("unpaired")
        b.onCompleted()
        #expect(recorder.events == [.next("1x"), .next("2y"), .next("3z"), .completed])
    }

    @Test("zip of three, tuple form")
    func zipTuple() {
        let log = Log()
        _ = Observable.zip(Observable.of(1, 2), Observable.of("a", "b", "c"), Observable.of(true, false))
            .subscribe(onNext: { log.append("\($0.0)\($0.1)\($0.2)") }, onCompleted: { log.append("completed") })
        #expect(log.entries == ["1atrue", "2bfalse", "completed"])
        let pairs = Recorder<Int>()
        _ = Observable.zip(Observable.of(1, 2), Observable.of(10, 20)).map { $0.0 + $0.1 }.subscribe(pairs)
        #expect(pairs.events == [.next(11), .next(22), .completed])
    }

    @Test("lifecycle of combineLatest and zip")
    func lifecycles() {
        expectStandardLifecycle(
            lifecycleEndings {
                Observable.combineLatest($0, Observable.just(1)) { $0 + $1 }.subscribe(onNext: { _ in })
            }
        )
        expectStandardLifecycle(
            lifecycleEndings { Observable.zip($0, Observable.of(1, 2, 3)) { $0 + $1 }.subscribe(onNext: { _ in }) })
    }

    @Test("combineLatest and zip of four to eight sources combine like the two-source forms")
    func higherArities() {
        let four = Recorder<String>()
        let (a, b, c, d) = (PublishSubject<Int>(), PublishSubject<Int>(), PublishSubject<Int>(), PublishSubject<Int>())
        let subscription = Observable.combineLatest(a, b, c, d) { "\($0)\($1)\($2)\($3)" }.subscribe(four)
        a.onNext(1)
        b.onNext(2)
        c.onNext(3)
        #expect(four.elements == [])
        d.onNext(4)
        a.onNext(5)
        #expect(four.elements == ["1234", "5234"])
        subscription.dispose()
        let eight = Recorder<String>()
        _ = Observable.zip(
            Observable.of(1, 2), Observable.of("a", "b"), Observable.of(3), Observable.of(4, 5), Observable.of(6),
            Observable.of(7), Observable.of(8), Observable.of(9)
        ).map { "\($0)\($1)\($2)\($3)\($4)\($5)\($6)\($7)" }.subscribe(eight)
        #expect(eight.events == [.next("1a3467 89".replacingOccurrences(of: " ", with: "")), .completed])
        let tuple = Recorder<Int>()
        _ = Observable.combineLatest(
            Observable.of(1), Observable.of(2), Observable.of(3), Observable.of(4), Observable.of(5)
        ).map { $0 + $1 + $2 + $3 + $4 }.subscribe(tuple)
        #expect(tuple.events == [.next(15), .completed])
    }

    @Test("lifecycle of combineLatest and zip of four sources")
    func higherArityLifecycles() {
        expectStandardLifecycle(
            lifecycleEndings { subject in
                Observable.combineLatest(subject, Observable.just(1), Observable.just(2), Observable.just(3))
                    .subscribe(onNext: { _ in })
            })
        expectStandardLifecycle(
            lifecycleEndings { subject in
                Observable.zip(subject, Observable.of(1, 2), Observable.of(1, 2), Observable.of(1, 2))
                    .subscribe(onNext: { _ in })
            })
    }
}
