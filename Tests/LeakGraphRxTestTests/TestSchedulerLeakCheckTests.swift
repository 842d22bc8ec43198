import LeakGraph
import LeakGraphRx
import LeakGraphRxTest
import LeakGraphTesting
import Testing

@Suite("TestScheduler leak check")
struct TestSchedulerLeakCheckTests {
    @Test("a subject subscribed during the run and never disposed is reported, with its leak trace")
    func leakedSubscriptionIsReported() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        _ = scheduler.start { () -> Observable<Int> in
            let subject = PublishSubject<Int>()
            // A subscription nobody disposes, whose handler keeps the subject: a leaked cycle.
            _ = subject.subscribe(onNext: { _ in _ = subject })
            return xs.asObservable()
        }
        let outcome = scheduler.leakCheck(options: LeakCheckOptions(gracePeriod: .milliseconds(50)))
        #expect(outcome.findings != nil)
        #expect(outcome.findings?.message.contains("PublishSubject<Int>") == true)
    }

    @Test("a clean run passes the check", .checksTestSchedulerLeaks)
    func cleanRunPasses() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.filter { $0 > 1 }.scan(0, accumulator: +) }
        #expect(res.events == [.next(220, 2), .completed(300)])
        #expect(scheduler.leakCheck().findings == nil)
    }

    @Test("a check without a start run says there was nothing to check")
    func checkWithoutRunSaysSo() {
        let scheduler = TestScheduler(initialClock: 0)
        let outcome = scheduler.leakCheck()
        #expect(outcome.findings == nil)
        #expect(outcome.notes.first?.contains("no start") == true)
    }
}
