import Foundation
import LeakGraph
import LeakGraphRx
import Testing

@Suite("skip(until:), withUnretained, retry(when:), from(optional:), replayAll, decode")
struct SkipUntilRetryWhenTests {
    @Test("skip(until:) drops elements until the other sequence emits; its bare completion keeps skipping")
    func skipUntil() {
        let source = PublishSubject<Int>()
        let gate = PublishSubject<Void>()
        let recorder = Recorder<Int>()
        _ = source.skip(until: gate).subscribe(recorder)
        source.onNext(1)
        gate.onNext(())
        source.onNext(2)
        source.onCompleted()
        #expect(recorder.events == [.next(2), .completed])
        let closed = Recorder<Int>()
        let other = PublishSubject<Int>()
        _ = source.skip(until: other).subscribe(closed)
        let second = PublishSubject<Int>()
        let stillSkipping = Recorder<Int>()
        let skipping = second.skip(until: other).subscribe(stillSkipping)
        other.onCompleted()
        second.onNext(3)
        #expect(stillSkipping.events == [])
        // Still subscribed to a subject that never ends: a cycle only dispose breaks (the leak
        // checks of suites running meanwhile saw it).
        skipping.dispose()
    }

    @Test("withUnretained pairs elements with the object and completes once it is gone")
    func withUnretained() {
        final class Owner { let name = "owner" }
        var owner: Owner? = Owner()
        let source = PublishSubject<Int>()
        let log = Log()
        _ = source.withUnretained(owner!).subscribe(
            onNext: { object, value in log.append("\(object.name) \(value)") }, onCompleted: { log.append("completed") }
        )
        source.onNext(1)
        owner = nil
        source.onNext(2)
        #expect(log.entries == ["owner 1", "completed"])
    }

    @Test("retry(when:) resubscribes on each notification and ends as the notifier does")
    func retryWhen() {
        struct Failure: Error {}
        let attempts = Log()
        let recorder = Recorder<Int>()
        _ = Observable<Int>.create { observer in
            attempts.append("attempt")
            observer.onNext(1)
            observer.onError(Failure())
            return Disposables.create()
        }.retry(when: { (errors: Observable<Failure>) in errors.take(2) }).subscribe(recorder)
        // As RxSwift: the second error's notification queues a resubscription, but `take(2)`
        // completes the notifier right after it, which completes the sequence first.
        #expect(attempts.entries.count == 2)
        #expect(recorder.events == [.next(1), .next(1), .completed])
        let failing = Recorder<Int>()
        _ = Observable<Int>.error(TestError()).retry(when: { (errors: Observable<Swift.Error>) in
            errors.flatMap { Observable<Int>.error($0) }
        }).subscribe(failing)
        #expect(failing.events == [.error("TestError")])
    }

    @Test("retry(when:) on a source that always fails and a notifier that never ends is a leaked cycle")
    func retryWhenLeak() {
        let outcome = leakingLifecycle {
            let source = PublishSubject<Int>()
            _ = source.retry(when: { (errors: Observable<Swift.Error>) in errors }).subscribe(onNext: { _ in })
            source.onNext(1)
        }
        #expect(!outcome.leakedCycles.isEmpty)
    }

    @Test("from(optional:), replayAll and decode")
    func smallOnes() throws {
        let some = Recorder<Int>()
        _ = Observable.from(optional: 3).subscribe(some)
        #expect(some.events == [.next(3), .completed])
        let none = Recorder<Int>()
        _ = Observable<Int>.from(optional: nil).subscribe(none)
        #expect(none.events == [.completed])
        let source = PublishSubject<Int>()
        let replayed = source.replayAll()
        let connection = replayed.connect()
        source.onNext(1)
        source.onNext(2)
        let late = Recorder<Int>()
        _ = replayed.subscribe(late)
        #expect(late.elements == [1, 2])
        connection.dispose()
        struct User: Decodable, Equatable { let name: String }
        let decoded = Recorder<String>()
        _ = Observable.just(Data(#"{"name":"Ada"}"#.utf8)).decode(type: User.self, decoder: JSONDecoder()).map(\.name)
            .subscribe(decoded)
        #expect(decoded.events == [.next("Ada"), .completed])
    }

    @Test("skip(until:), withUnretained and retry(when:) release everything after completion or dispose")
    func lifecycles() {
        final class Owner {}
        let owner = Owner()
        expectStandardLifecycle(
            lifecycleEndings { $0.skip(until: Observable<Int>.just(0)).subscribe(onNext: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.withUnretained(owner).subscribe(onNext: { _ in }) })
    }
}
