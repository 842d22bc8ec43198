import LeakGraph
import LeakGraphRx
import Testing

@Suite("distinctUntilChanged, scan, startWith, do, catchAndReturn", .serialized)
struct SimpleOperatorTests {
    @Test("distinctUntilChanged drops consecutive duplicates")
    func distinct() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 1, 2, 2, 1, 3, 3).distinctUntilChanged().subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .next(1), .next(3), .completed])
        let keyed = Recorder<String>()
        _ = Observable.of("a", "b", "cc", "dd", "e").distinctUntilChanged { $0.count }.subscribe(keyed)
        #expect(keyed.elements == ["a", "cc", "e"])
    }

    @Test("scan emits running accumulations")
    func scan() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2, 3).scan(10) { $0 + $1 }.subscribe(recorder)
        #expect(recorder.events == [.next(11), .next(13), .next(16), .completed])
        let failing = Recorder<Int>()
        _ = Observable.of(1, 2).scan(0) { _, _ in throw TestError() }.subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("startWith emits its elements first")
    func startWith() {
        let recorder = Recorder<Int>()
        _ = Observable.of(3).startWith(1, 2).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test("do calls its handlers before forwarding, and onDispose at the end")
    func doHandlers() {
        let log = Log()
        _ = Observable.of(1).do(
            onNext: { log.append("do next \($0)") }, onCompleted: { log.append("do completed") },
            onDispose: { log.append("do dispose") }
        ).subscribe(onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") })
        #expect(log.entries == ["do next 1", "next 1", "do completed", "completed", "do dispose"])
        let failing = Recorder<Int>()
        _ = Observable.of(1, 2).do(onNext: { _ in throw TestError() }).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
        let disposeLog = Log()
        Observable<Int>.never().do(onDispose: { disposeLog.append("disposed") }).subscribe().dispose()
        #expect(disposeLog.entries == ["disposed"])
    }

    @Test("do: handler, event, after-handler; onSubscribe and onSubscribed around subscribing, then disposal")
    func doAroundEvents() {
        let log = Log()
        _ = Observable.of(1).do(
            onNext: { log.append("on next \($0)") }, afterNext: { log.append("after next \($0)") },
            onCompleted: { log.append("on completed") }, afterCompleted: { log.append("after completed") },
            onSubscribe: { log.append("subscribe") }, onSubscribed: { log.append("subscribed") },
            onDispose: { log.append("dispose") }
        ).subscribe(onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") })
        // As RxSwift: `of` emits from the current thread's trampoline, after the subscription
        // is in place, so `onSubscribed` comes before the first element.
        #expect(
            log.entries == [
                "subscribe", "subscribed", "on next 1", "next 1", "after next 1", "on completed", "completed",
                "after completed", "dispose",
            ])
        let failing = Recorder<Int>()
        _ = Observable.of(1, 2).do(afterNext: { _ in throw TestError() }).subscribe(failing)
        #expect(failing.events == [.next(1), .error("TestError")])
    }

    @Test("catchAndReturn replaces an error with an element and completion")
    func catchAndReturn() {
        let recorder = Recorder<Int>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError())).catchAndReturn(0).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(0), .completed])
    }

    @Test("lifecycle of distinctUntilChanged, scan, do, catchAndReturn")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.distinctUntilChanged().subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.scan(0, accumulator: +).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.do(onNext: { _ in }).subscribe(onNext: { _ in }) })
        let caught = lifecycleEndings { $0.catchAndReturn(0).subscribe(onNext: { _ in }) }
        expectStandardLifecycle(caught)
    }

    @Test("lifecycle of startWith: no sink of its own, so a dropped subscription to a subject leaves nothing")
    func startWithLifecycle() {
        let endings = lifecycleEndings { $0.startWith(0).subscribe(onNext: { _ in }) }
        #expect(endings.completed.aliveTypes == [])
        #expect(endings.errored.aliveTypes == [])
        #expect(endings.disposed.aliveTypes == [])
        #expect(endings.never.aliveTypes == [])
        let overMap = lifecycleEndings { $0.map { $0 }.startWith(0).subscribe(onNext: { _ in }) }
        expectStandardLifecycle(overMap)
    }
}

extension ObservableType {
    /// `subscribe()` with no handlers, as in RxSwift.
    func subscribe() -> Disposable { subscribe(onNext: nil) }
}
