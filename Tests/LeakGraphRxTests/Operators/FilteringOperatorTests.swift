import LeakGraph
import LeakGraphRx
import Testing

/// The filtering operators RxSwift 6 has: the events each emits, in RxSwift's order, and their
/// lifecycles.
@Suite("compactMap, take(while:), skip(while:), element(at:), takeLast, single, ignoreElements", .serialized)
struct FilteringOperatorTests {
    @Test("compactMap emits the non-nil results and fails on a thrown error")
    func compactMap() {
        let recorder = Recorder<Int>()
        _ = Observable.of("1", "x", "3").compactMap { Int($0) }.subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(3), .completed])
        let failing = Recorder<Int>()
        _ = Observable.of(1, 2).compactMap { _ -> Int? in throw TestError() }.subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("take(while:) stops at the first element that fails, emitting it only when inclusive")
    func takeWhile() {
        let exclusive = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 1).take(while: { $0 < 3 }).subscribe(exclusive)
        #expect(exclusive.events == [.next(1), .next(2), .completed])
        let inclusive = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 1).take(while: { $0 < 3 }, behavior: .inclusive).subscribe(inclusive)
        #expect(inclusive.events == [.next(1), .next(2), .next(3), .completed])
        let until = Recorder<Int>()
        _ = Observable.of(1, 2, 3).take(until: { $0 == 2 }).subscribe(until)
        #expect(until.events == [.next(1), .completed])
        let failing = Recorder<Int>()
        _ = Observable.of(1).take(while: { _ in throw TestError() }).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("skip(while:) drops the leading elements that pass, then lets every element through")
    func skipWhile() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 1).skip(while: { $0 < 2 }).subscribe(recorder)
        #expect(recorder.events == [.next(2), .next(3), .next(1), .completed])
    }

    @Test("element(at:) emits one element then completes; past the end it fails with argumentOutOfRange")
    func elementAt() {
        let recorder = Recorder<String>()
        _ = Observable.of("a", "b", "c").element(at: 1).subscribe(recorder)
        #expect(recorder.events == [.next("b"), .completed])
        let short = Recorder<String>()
        _ = Observable.of("a").element(at: 3).subscribe(short)
        #expect(short.events == [.error("\(RxError.argumentOutOfRange)")])
    }

    @Test("takeLast emits the last elements on completion, none on error")
    func takeLast() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3, 4, 5).takeLast(2).subscribe(recorder)
        #expect(recorder.events == [.next(4), .next(5), .completed])
        let all = Recorder<Int>()
        _ = Observable.of(1, 2).takeLast(5).subscribe(all)
        #expect(all.events == [.next(1), .next(2), .completed])
        let none = Recorder<Int>()
        _ = Observable.of(1, 2).takeLast(0).subscribe(none)
        #expect(none.events == [.completed])
        let failing = Recorder<Int>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).takeLast(1).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("single emits the only element; none fails with noElements, a second with moreThanOneElement")
    func single() {
        let one = Recorder<Int>()
        _ = Observable.of(7).single().subscribe(one)
        #expect(one.events == [.next(7), .completed])
        let none = Recorder<Int>()
        _ = Observable<Int>.empty().single().subscribe(none)
        #expect(none.events == [.error("\(RxError.noElements)")])
        // As RxSwift: the first element is emitted before the second one fails the sequence.
        let two = Recorder<Int>()
        _ = Observable.of(1, 2).single().subscribe(two)
        #expect(two.events == [.next(1), .error("\(RxError.moreThanOneElement)")])
        let matching = Recorder<Int>()
        _ = Observable.of(1, 2, 3).single { $0 == 2 }.subscribe(matching)
        #expect(matching.events == [.next(2), .completed])
    }

    @Test("ignoreElements forwards only the terminal event")
    func ignoreElements() {
        let recorder = Recorder<Never>()
        _ = Observable.of(1, 2).ignoreElements().subscribe(recorder)
        #expect(recorder.events == [.completed])
        let failing = Recorder<Never>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).ignoreElements().subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("distinctUntilChanged computes each key once and compares with the last emitted key")
    func distinctKeys() {
        let calls = Log()
        let recorder = Recorder<String>()
        _ = Observable.of("a", "b", "cc", "d").distinctUntilChanged { (text: String) -> Int in
            calls.append(text)
            return text.count
        }.subscribe(recorder)
        #expect(recorder.elements == ["a", "cc", "d"])
        #expect(calls.entries == ["a", "b", "cc", "d"])
        struct User: Equatable { var id: Int }
        let users = Recorder<Int>()
        _ = Observable.of(User(id: 1), User(id: 1), User(id: 2)).distinctUntilChanged(at: \.id).map(\.id)
            .subscribe(users)
        #expect(users.elements == [1, 2])
    }

    @Test("lifecycle of compactMap, take(while:), skip(while:), element(at:), takeLast, single, ignoreElements")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.compactMap { $0 }.subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.take(while: { $0 < 100 }).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.skip(while: { $0 < 100 }).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.element(at: 5).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.takeLast(2).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.single().subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.ignoreElements().subscribe(onCompleted: {}) })
    }
}
