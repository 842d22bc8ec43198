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
