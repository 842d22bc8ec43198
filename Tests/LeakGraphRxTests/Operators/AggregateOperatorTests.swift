import LeakGraph
import LeakGraphRx
import Testing

/// reduce, scan(into:), enumerated, materialize and dematerialize: their events in RxSwift's
/// order and their lifecycles.
@Suite("reduce, scan(into:), enumerated, materialize, dematerialize", .serialized)
struct AggregateOperatorTests {
    @Test("reduce emits the accumulation (mapped) once, when the source completes")
    func reduce() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3).reduce(0, accumulator: +).subscribe(recorder)
        #expect(recorder.events == [.next(6), .completed])
        let mapped = Recorder<String>()
        _ = Observable.of(1, 2, 3).reduce(0, accumulator: +, mapResult: { "sum \($0)" }).subscribe(mapped)
        #expect(mapped.events == [.next("sum 6"), .completed])
        let failing = Recorder<Int>()
        _ = Observable.of(1).reduce(0, accumulator: { _, _ in throw TestError() }).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
        let mapFailing = Recorder<Int>()
        _ = Observable.of(1).reduce(0, accumulator: +, mapResult: { _ -> Int in throw TestError() }).subscribe(
            mapFailing)
        #expect(mapFailing.events == [.error("TestError")])
    }

    @Test("scan(into:) mutates the accumulation in place and emits each step")
    func scanInto() {
        let recorder = Recorder<[Int]>()
        _ = Observable.of(1, 2).scan(into: [Int]()) { $0.append($1) }.subscribe(recorder)
        #expect(recorder.events == [.next([1]), .next([1, 2]), .completed])
    }

    @Test("enumerated pairs elements with their index")
    func enumerated() {
        let recorder = Recorder<String>()
        _ = Observable.of("a", "b").enumerated().map { "\($0.index)\($0.element)" }.subscribe(recorder)
        #expect(recorder.events == [.next("0a"), .next("1b"), .completed])
    }

    @Test("materialize turns every event into an element; dematerialize turns them back")
    func materialize() {
        let recorder = Recorder<String>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).materialize().map { "\($0)" }
            .subscribe(recorder)
        #expect(recorder.events == [.next("next(1)"), .next("error(TestError)"), .completed])
        let back = Recorder<Int>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).materialize().dematerialize()
            .subscribe(back)
        #expect(back.events == [.next(1), .error("TestError")])
    }

    @Test("lifecycle of reduce, scan(into:), enumerated, materialize, dematerialize")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.reduce(0, accumulator: +).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.scan(into: 0) { $0 += $1 }.subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.enumerated().subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.materialize().subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.materialize().dematerialize().subscribe(onNext: { _ in }) })
    }
}
