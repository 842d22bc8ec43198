import LeakGraph
import LeakGraphRx
import Testing

/// merge(maxConcurrent:), concat(), concatMap, flatMapFirst and switchLatest: how many inner
/// sequences run at once, in RxSwift's order, and their lifecycles.
@Suite("merge(maxConcurrent:), concatMap, flatMapFirst, switchLatest", .serialized)
struct MergeLimitedTests {
    @Test("merge(maxConcurrent: 1) subscribes to the next inner sequence only when the previous completes")
    func mergeLimited() {
        let a = PublishSubject<String>()
        let b = PublishSubject<String>()
        let outer = PublishSubject<Observable<String>>()
        let recorder = Recorder<String>()
        let subscription = outer.merge(maxConcurrent: 1).subscribe(recorder)
        outer.onNext(a)
        outer.onNext(b)
        b.onNext("b lost: not subscribed yet")
        a.onNext("a1")
        a.onCompleted()
        b.onNext("b1")
        outer.onCompleted()
        #expect(recorder.events == [.next("a1"), .next("b1")])
        b.onCompleted()
        #expect(recorder.events == [.next("a1"), .next("b1"), .completed])
        subscription.dispose()
    }

    @Test("merge(maxConcurrent: 2) runs two inner sequences at once")
    func mergeTwo() {
        let inners = (0..<3).map { _ in PublishSubject<Int>() }
        let recorder = Recorder<Int>()
        let subscription = Observable.from(inners.map { $0.asObservable() }).merge(maxConcurrent: 2).subscribe(recorder)
        inners[2].onNext(99)  // waiting
        inners[0].onNext(0)
        inners[1].onNext(1)
        inners[0].onCompleted()
        inners[2].onNext(2)
        #expect(recorder.elements == [0, 1, 2])
        subscription.dispose()
    }

    @Test("concat() of an observable of observables runs them one after another")
    func concatOfObservables() {
        let recorder = Recorder<Int>()
        _ = Observable.of(Observable.of(1, 2), Observable.of(3)).concat().subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test(
        "concatMap maps each element as it arrives (a throwing selector fails at once) and subscribes when its turn comes, in order"
    )
    func concatMapMapsOnArrival() {
        let log = Log()
        let gate = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        let subscription = Observable.of(1, 2).concatMap { value -> Observable<Int> in
            log.append("map \(value)")
            return value == 1 ? gate.asObservable() : .just(value * 10)
        }.subscribe(recorder)
        // Both mapped (RxSwift's order), the second waits for the first to complete.
        #expect(log.entries == ["map 1", "map 2"])
        #expect(recorder.events == [])
        gate.onNext(5)
        gate.onCompleted()
        #expect(recorder.events == [.next(5), .next(20), .completed])
        subscription.dispose()

        let failing = Recorder<Int>()
        let source = PublishSubject<Int>()
        _ = source.concatMap { value -> Observable<Int> in
            if value == 2 { throw TestError() }
            return gate.asObservable()
        }.subscribe(failing)
        source.onNext(1)
        source.onNext(2)  // waiting behind 1's sequence, and yet its selector throws now
        #expect(failing.events == [.error("TestError")])
    }

    @Test("flatMapFirst drops elements while an inner sequence runs")
    func flatMapFirstDrops() {
        let source = PublishSubject<Int>()
        let inner = PublishSubject<String>()
        let recorder = Recorder<String>()
        let subscription = source.flatMapFirst { value -> Observable<String> in
            value == 1 ? inner.asObservable() : .just("just \(value)")
        }.subscribe(recorder)
        source.onNext(1)
        source.onNext(2)  // dropped: 1's sequence runs
        inner.onNext("inner")
        inner.onCompleted()
        source.onNext(3)
        #expect(recorder.elements == ["inner", "just 3"])
        subscription.dispose()
    }

    @Test("switchLatest follows the latest inner sequence; flatMap takes a Single")
    func switchLatestAndSingle() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let outer = PublishSubject<Observable<Int>>()
        let recorder = Recorder<Int>()
        let subscription = outer.switchLatest().subscribe(recorder)
        outer.onNext(first)
        first.onNext(1)
        outer.onNext(second)
        first.onNext(2)  // disposed: ignored
        second.onNext(3)
        #expect(recorder.elements == [1, 3])
        subscription.dispose()
        let singles = Recorder<String>()
        _ = Observable.of(1, 2).flatMap { Single.just("s\($0)") }.subscribe(singles)
        #expect(singles.events == [.next("s1"), .next("s2"), .completed])
    }

    @Test("lifecycle of concatMap, flatMapFirst, merge(maxConcurrent:)")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.concatMap { Observable.just($0) }.subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { $0.flatMapFirst { Observable.just($0) }.subscribe(onNext: { _ in }) })
        expectStandardLifecycle(
            lifecycleEndings { $0.map { Observable.just($0) }.merge(maxConcurrent: 2).subscribe(onNext: { _ in }) })
    }
}
