import Dispatch
import LeakGraphRx
import LeakGraphRxBlocking
import Testing

@Suite("toBlocking()")
struct BlockingTests {
    struct Failure: Error {}

    @Test("toArray, first, last and single wait for their result")
    func operators() throws {
        #expect(try Observable.of(1, 2, 3).toBlocking().toArray() == [1, 2, 3])
        #expect(try Observable.of(1, 2, 3).toBlocking().first() == 1)
        #expect(try Observable.of(1, 2, 3).toBlocking().last() == 3)
        #expect(try Observable<Int>.empty().toBlocking().first() == nil)
        #expect(try Observable.just(7).toBlocking().single() == 7)
        #expect(try Observable.of(1, 2, 3).toBlocking().single { $0 == 2 } == 2)
        #expect(throws: RxError.self) { try Observable.of(1, 2).toBlocking().single() }
        #expect(throws: RxError.self) { try Observable<Int>.empty().toBlocking().single() }
    }

    @Test("events from another thread are waited for")
    func asynchronousSource() throws {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.blocking")
        let values = try Observable<Int>.interval(.milliseconds(2), scheduler: scheduler).take(4)
            .toBlocking(timeout: 5).toArray()
        #expect(values == [0, 1, 2, 3])
    }

    @Test("a timeout throws RxError.timeout, and the subscription is disposed")
    func timeout() {
        let subject = PublishSubject<Int>()
        #expect(throws: RxError.self) { try subject.toBlocking(timeout: 0.05).toArray() }
        #expect(!subject.hasObservers)
    }

    @Test("materialize reports the elements and how the sequence ended")
    func materialize() {
        let result = Observable.of(1, 2).concat(Observable.error(Failure())).toBlocking().materialize()
        guard case .failed(let elements, let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(elements == [1, 2])
        #expect(error is Failure)
    }
}
