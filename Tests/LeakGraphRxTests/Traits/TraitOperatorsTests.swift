import Foundation
import LeakGraph
import LeakGraphRx
import Testing

/// An object for `withUnretained` and `subscribe(with:)`.
private final class UnretainedTarget {
    var title = "screen"
}

@Suite("Trait operators and arities")
struct TraitOperatorsTests {
    @Test("Infallible.combineLatest and zip of 3 to 8 sources, with a selector and as tuples")
    func infallibleArities() {
        let log = Log()
        _ = Infallible.combineLatest(Infallible.just(1), Infallible.just("a"), Infallible.just(2.5)) {
            "\($0)\($1)\($2)"
        }
        .subscribe(onNext: { log.append($0) })
        _ = Infallible.combineLatest(Infallible.just(1), Infallible.just(2), Infallible.just(3)).subscribe(onNext: {
            log.append("\($0.0 + $0.1 + $0.2)")
        })
        let one = Infallible.just(1)
        let sum: (Int, Int, Int, Int, Int, Int, Int, Int) throws -> Int = { a, b, c, d, e, f, g, h in
            [a, b, c, d, e, f, g, h].reduce(0, +)
        }
        let eight: Infallible<Int> = Infallible.combineLatest(
            one, one, one, one, one, one, one, one, resultSelector: sum)
        _ = eight.subscribe(onNext: { log.append("\($0)") })
        _ = Infallible.zip(Infallible.of(1, 2), .of(10, 20), .of(100, 200)) { $0 + $1 + $2 }
            .subscribe(onNext: { log.append("\($0)") })
        _ = Infallible.combineLatest([Infallible.just(1), .just(2)]).subscribe(onNext: { log.append("\($0)") })
        #expect(log.entries == ["1a2.5", "6", "8", "111", "222", "[1, 2]"])
    }

    @Test("Infallible's take, skip, distinctUntilChanged, withUnretained, concat and merge of collections")
    func infallibleOperators() {
        let log = Log()
        _ = Infallible.of(1, 2, 3, 4).take(while: { $0 < 3 }, behavior: .inclusive).subscribe(onNext: {
            log.append("w\($0)")
        })
        _ = Infallible.of(1, 2, 3).take(until: { $0 == 2 }).subscribe(onNext: { log.append("u\($0)") })
        _ = Infallible.of("a", "ab", "cd", "b").distinctUntilChanged(at: \.count).subscribe(onNext: { log.append($0) })
        let screen = UnretainedTarget()
        _ = Infallible.just(1).withUnretained(screen).subscribe(onNext: { log.append("\($0.title)\($1)") })
        _ = Infallible.concat([Infallible.just(1), .just(2)].lazy.map { $0 }).subscribe(onNext: {
            log.append("c\($0)")
        })
        // Merge subscribes to every source at once: a never-ending first source does not hold
        // back the second (RxSwift 6.10's collection form concatenates here).
        _ = Infallible.merge([Infallible<Int>.never(), .just(7)].lazy.map { $0 }).subscribe(onNext: {
            log.append("m\($0)")
        })
        _ = Infallible.of(1, 2).concat(Infallible.just(3)).skip(until: Observable.just(0)).subscribe(onNext: {
            log.append("s\($0)")
        })
        #expect(
            log.entries == ["w1", "w2", "w3", "u1", "a", "ab", "b", "screen1", "c1", "c2", "m7", "s1", "s2", "s3"])
    }

    @Test("materialized infallible events dematerialize")
    func infallibleEventsDematerialize() {
        let log = Log()
        _ = Observable<InfallibleEvent<Int>>.of(.next(1), .completed).dematerialize().subscribe(
            onNext: { log.append("\($0)") }, onCompleted: { log.append("completed") })
        #expect(log.entries == ["1", "completed"])
    }

    @Test("Single.zip of 3 with a selector and as a tuple; of a collection, empty included")
    func singleZip() {
        let log = Log()
        _ = Single.zip(Single.just(1), .just(2), .just(3)) { $0 * $1 * $2 }.subscribe(onSuccess: {
            log.append("\($0)")
        })
        _ = Single.zip(Single.just(1), .just("b"), .just(true)).subscribe(onSuccess: {
            log.append("\($0.0)\($0.1)\($0.2)")
        })
        _ = Single.zip([Single.just(1), .just(2)]).subscribe(onSuccess: { log.append("\($0)") })
        _ = Single.zip([Single<Int>]()).subscribe(onSuccess: { log.append("empty \($0)") })
        _ = Single.zip([Single.just(2), .just(5)]) { $0.reduce(0, +) }.subscribe(onSuccess: { log.append("\($0)") })
        _ = Single.zip(Single.just(1), .error(TestError()), .just(3)) { $0 + $1 + $2 }.subscribe(onFailure: {
            log.append("failed \($0)")
        })
        #expect(log.entries == ["6", "1btrue", "[1, 2]", "empty []", "7", "failed TestError"])
    }

    @Test("Maybe.zip completes empty when a source does; Maybe and Completable subscribe(with:)")
    func maybeZipAndSubscribeWith() {
        let log = Log()
        _ = Maybe.zip(Maybe.just(1), .just(2)) { $0 + $1 }.subscribe(onSuccess: { log.append("\($0)") })
        _ = Maybe.zip(Maybe.just(1), Maybe<Int>.empty()).subscribe(
            onSuccess: { _ in log.append("unexpected") }, onCompleted: { log.append("empty") })
        let screen = UnretainedTarget()
        _ = Maybe.just(5).subscribe(with: screen, onSuccess: { log.append("\($0.title) \($1)") })
        _ = Completable.empty().concat(.empty()).subscribe(
            with: screen, onCompleted: { log.append("\($0.title) done") })
        _ = Completable.zip([Completable.empty(), .empty()]).subscribe(onCompleted: { log.append("zipped") })
        _ = Completable.concat([Completable.empty()].lazy.map { $0 }).subscribe(onCompleted: { log.append("concat") })
        #expect(log.entries == ["3", "empty", "screen 5", "screen done", "zipped", "concat"])
    }

    @Test("a relay as an infallible; values as an async sequence; an async sequence as an observable")
    func concurrencyBridges() async throws {
        let relay = BehaviorRelay(value: 1)
        let log = Log()
        let subscription = relay.asInfallible().subscribe(onNext: { log.append("\($0)") })
        relay.accept(2)
        subscription.dispose()
        #expect(log.entries == ["1", "2"])
        var collected: [Int] = []
        for try await value in Observable.of(1, 2, 3).values { collected.append(value) }
        #expect(collected == [1, 2, 3])
        var infallibleValues: [Int] = []
        for await value in Infallible.of(4, 5).values { infallibleValues.append(value) }
        #expect(infallibleValues == [4, 5])
        do {
            for try await _ in Observable<Int>.error(TestError()).values {}
            Issue.record("expected the error")
        } catch {
            #expect(error is TestError)
        }
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        let fromStream = try await stream.asObservable().toArray().value
        #expect(fromStream == [1, 2, 3])
    }

    @Test("awaiting a trait's value, and a single made of async work")
    func awaitingValues() async throws {
        #expect(try await Single.just(3).value == 3)
        #expect(try await Maybe<Int>.empty().value == nil)
        #expect(try await Maybe.just(4).value == 4)
        try await Completable.empty().value
        await #expect(throws: TestError.self) { try await Single<Int>.error(TestError()).value }
        let made = Single<Int>.create { 40 + 2 }
        #expect(try await made.value == 42)
        let failing = Single<Int>.create(detached: true) { throw TestError() }
        await #expect(throws: TestError.self) { try await failing.value }
        // Cancelling the waiting task disposes the subscription and throws CancellationError.
        let waiting = Task { try await Single<Int>.never().value }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test("the tuple forms are declared on Observable<Any>, as RxSwift's: explicit or inferred")
    func tupleFormsOnAny() {
        let log = Log()
        _ = Observable<Any>.zip(Observable.just(1), Observable.just("a")).subscribe(onNext: {
            log.append("\($0.0)\($0.1)")
        })
        _ = Observable.combineLatest(Observable.just(2), Observable.just("b"), Observable.just(true)).subscribe(
            onNext: {
                log.append("\($0.0)\($0.1)\($0.2)")
            })
        #expect(log.entries == ["1a", "2btrue"])
    }
}
