import Dispatch
import LeakGraph
import LeakGraphRx
import Testing

@Suite("observe(on:), subscribe(on:)", .serialized)
struct SchedulerTests {
    @Test("observe(on:) delivers every event on the scheduler's queue, in order")
    func observeOn() async {
        let scheduler = SerialDispatchQueueScheduler(queue: .global(), internalSerialQueueName: "test.observeOn")
        let key = DispatchSpecificKey<Int>()
        scheduler.queue.setSpecific(key: key, value: 1)
        let log = Log()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = Observable.from(0..<100).observe(on: scheduler).subscribe(
                onNext: { value in log.append(DispatchQueue.getSpecific(key: key) == 1 ? "\(value)" : "wrong queue") },
                onCompleted: { continuation.resume() })
        }
        #expect(log.entries == (0..<100).map { "\($0)" })
    }

    @Test("observe(on:) delivers nothing after dispose")
    func observeOnDispose() async {
        let scheduler = DispatchQueueScheduler(queue: DispatchQueue(label: "test.observeOn.dispose"))
        let subject = PublishSubject<Int>()
        let log = Log()
        let subscription = subject.observe(on: scheduler).subscribe(onNext: { log.append("\($0)") })
        subscription.dispose()
        subject.onNext(1)
        await withCheckedContinuation { continuation in scheduler.queue.async { continuation.resume() } }
        #expect(log.entries == [])
    }

    @Test("subscribe(on:) subscribes on the scheduler's queue")
    func subscribeOn() async {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.subscribeOn")
        let key = DispatchSpecificKey<Int>()
        scheduler.queue.setSpecific(key: key, value: 2)
        let log = Log()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = Observable<Int>.create { observer in
                log.append(DispatchQueue.getSpecific(key: key) == 2 ? "on queue" : "wrong queue")
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }.subscribe(on: scheduler).subscribe(onCompleted: { continuation.resume() })
        }
        #expect(log.entries == ["on queue"])
    }
}

@Suite("CurrentThreadScheduler trampoline")
struct TrampolineTests {
    @Test("merge of two synchronous sources interleaves them as RxSwift does: 1, 3, 2, 4")
    func mergeInterleaves() {
        let log = Log()
        _ = Observable.merge(.of(1, 2), .of(3, 4)).subscribe(onNext: { log.append("\($0)") })
        #expect(log.entries == ["1", "3", "2", "4"])
    }

    @Test("a subscription made inside onNext is queued behind the running work, not nested")
    func reentrantSubscriptionIsQueued() {
        let log = Log()
        _ = Observable.of(1).subscribe(onNext: { _ in
            _ = Observable.of(2).subscribe(onNext: { log.append("inner \($0)") })
            log.append("after inner subscribe")
        })
        #expect(log.entries == ["after inner subscribe", "inner 2"])
    }

    @Test("a top-level subscription still receives a synchronous source before subscribe returns")
    func topLevelIsSynchronous() {
        let log = Log()
        _ = Observable.range(start: 1, count: 3).subscribe(onNext: { log.append("\($0)") })
        log.append("returned")
        #expect(log.entries == ["1", "2", "3", "returned"])
        #expect(CurrentThreadScheduler.isScheduleRequired)
    }

    @Test("repeatElement with take stops after the count")
    func repeatElementTake() {
        let log = Log()
        _ = Observable.repeatElement("x").take(3).subscribe(onNext: { log.append($0) })
        #expect(log.entries == ["x", "x", "x"])
    }

    @Test("of on a Dispatch scheduler emits every element there, then completes")
    func ofOnDispatchScheduler() async {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.of")
        let log = Log()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = Observable.of(1, 2, 3, scheduler: scheduler).subscribe(
                onNext: { log.append("\($0)") }, onCompleted: { continuation.resume() })
        }
        #expect(log.entries == ["1", "2", "3"])
    }

    @Test("a Dispatch timer ticks until disposed")
    func dispatchInterval() async {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.interval")
        let log = Log()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = Observable<Int>.interval(.milliseconds(5), scheduler: scheduler).take(3).subscribe(
                onNext: { log.append("\($0)") }, onCompleted: { continuation.resume() })
        }
        #expect(log.entries == ["0", "1", "2"])
    }
}

@Suite("re-entrant delivery")
struct ReentrantDeliveryTests {
    @Test("an element a merge's observer causes is delivered nested, as RxSwift's recursive lock does")
    func mergeNested() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let log = Log()
        // Disposed at the end: the closure captures `b`, which holds the subscription.
        let subscription = Observable.merge(a.asObservable(), b.asObservable()).subscribe(onNext: { value in
            log.append("\(value) begin")
            if value == 1 { b.onNext(2) }
            log.append("\(value) end")
        })
        defer { subscription.dispose() }
        a.onNext(1)
        #expect(log.entries == ["1 begin", "2 begin", "2 end", "1 end"])
    }

    @Test("combineLatest delivers a re-entrant element nested too")
    func combineLatestNested() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let log = Log()
        // Disposed at the end: the closure captures `a`, which holds the subscription (a cycle
        // only disposal breaks).
        let subscription = Observable.combineLatest(a, b) { $0 + $1 }.subscribe(onNext: { sum in
            log.append("\(sum) begin")
            if sum == 11 { a.onNext(2) }
            log.append("\(sum) end")
        })
        defer { subscription.dispose() }
        a.onNext(1)
        b.onNext(10)
        #expect(log.entries == ["11 begin", "12 begin", "12 end", "11 end"])
    }
}
