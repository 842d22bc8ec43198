import LeakGraph
import LeakGraphRx
import Testing

/// Single, Maybe and Completable: RxSwift's results for each way a trait can end, the
/// conversions from observables, and a trait's closure capturing its owner as a leaked cycle.
@Suite("Traits", .serialized)
struct TraitTests {
    private func result<Element>(_ single: Single<Element>) -> String {
        let log = Log()
        _ = single.subscribe(onSuccess: { log.append("success(\($0))") }, onFailure: { log.append("failure(\($0))") })
        return log.entries.joined(separator: ", ")
    }

    private func result<Element>(_ maybe: Maybe<Element>) -> String {
        let log = Log()
        _ = maybe.subscribe(
            onSuccess: { log.append("success(\($0))") }, onError: { log.append("error(\($0))") },
            onCompleted: { log.append("completed") })
        return log.entries.joined(separator: ", ")
    }

    private func result(_ completable: Completable) -> String {
        let log = Log()
        _ = completable.subscribe(onCompleted: { log.append("completed") }, onError: { log.append("error(\($0))") })
        return log.entries.joined(separator: ", ")
    }

    @Test("Single.create reports the first result only")
    func singleCreate() {
        let single = Single<Int>.create { observer in
            observer(.success(1))
            observer(.success(2))
            observer(.failure(TestError()))
            return Disposables.create()
        }
        #expect(result(single) == "success(1)")
        #expect(result(Single<Int>.error(TestError())) == "failure(TestError)")
        let events = Log()
        _ = Single.just(3).subscribe { event in events.append("\(event)") }
        #expect(events.entries == ["success(3)"])
    }

    @Test("asSingle: one element succeeds, none fails with noElements, a second with moreThanOneElement")
    func asSingle() {
        #expect(result(Observable.of(1).asSingle()) == "success(1)")
        #expect(result(Observable<Int>.empty().asSingle()) == "failure(\(RxError.noElements))")
        // As RxSwift: the element is held until completion, so the second one fails it alone.
        #expect(result(Observable.of(1, 2).asSingle()) == "failure(\(RxError.moreThanOneElement))")
        #expect(result(Observable.of(1, 2).first()) == "success(Optional(1))")
        #expect(result(Observable<Int>.empty().first()) == "success(nil)")
        #expect(result(Observable.of(1, 2).toArray()) == "success([1, 2])")
    }

    @Test("asMaybe: empty completes, one element succeeds without a completion after it")
    func asMaybe() {
        #expect(result(Observable<Int>.empty().asMaybe()) == "completed")
        #expect(result(Observable.of(1).asMaybe()) == "success(1)")
        #expect(result(Observable.of(1, 2).asMaybe()) == "error(\(RxError.moreThanOneElement))")
        #expect(result(Maybe<Int>.empty().ifEmpty(default: 9)) == "success(9)")
        #expect(result(Maybe.just(1).ifEmpty(default: 9)) == "success(1)")
        #expect(result(Maybe<Int>.empty().ifEmpty(switchTo: Maybe.just(4))) == "success(4)")
    }

    @Test("Single operators: map, flatMap, filter to a Maybe, zip, catchAndReturn, retry")
    func singleOperators() {
        #expect(result(Single.just(2).map { $0 * 10 }) == "success(20)")
        #expect(result(Single.just(2).flatMap { Single.just("\($0)!") }) == "success(2!)")
        #expect(result(Single.just(2).filter { $0 > 5 }) == "completed")
        #expect(result(Single.zip(Single.just(1), Single.just("a"))) == "success((1, \"a\"))")
        #expect(result(Single<Int>.error(TestError()).catchAndReturn(0)) == "success(0)")
        let attempts = Log()
        let flaky = Single<Int>.create { observer in
            attempts.append("attempt")
            if attempts.entries.count < 2 { observer(.failure(TestError())) } else { observer(.success(7)) }
            return Disposables.create()
        }
        #expect(result(flaky.retry(3)) == "success(7)")
    }

    @Test("Completable: create, andThen, concat, zip and conversions")
    func completable() {
        let log = Log()
        let first = Completable.create { observer in
            log.append("first")
            observer(.completed)
            return Disposables.create()
        }
        #expect(result(first.andThen(Single.just(5))) == "success(5)")
        #expect(result(Completable.concat(first, first)) == "completed")
        #expect(result(Completable.zip(first, Completable.error(TestError()))) == "error(TestError)")
        #expect(result(Observable.of(1, 2).ignoreElements().asCompletable()) == "completed")
        #expect(result(Single.just(1).asCompletable()) == "completed")
        #expect(log.entries == ["first", "first", "first", "first"])
    }

    @Test("a Single whose closure captures its owner, stored on the owner, is a leaked cycle")
    func singleCapturingOwnerLeaks() {
        let outcome = leakingLifecycle { TraitOwner().load() }
        #expect(outcome.leakedCycles.count == 1, "\(outcome.dump)")
        let members = outcome.leakedCycles.first.map(outcome.memberTypes) ?? []
        #expect(members.contains("TraitOwner"), "\(members)")
    }

    @Test("lifecycle of asSingle, asMaybe, toArray")
    func lifecycles() {
        expectStandardLifecycle(lifecycleEndings { $0.asSingle().subscribe(onSuccess: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.asMaybe().subscribe(onSuccess: { _ in }) })
        expectStandardLifecycle(lifecycleEndings { $0.toArray().subscribe(onSuccess: { _ in }) })
    }
}

/// Keeps a request whose closure reads `self`: the classic trait leak.
final class TraitOwner: TrackedObject {
    var request: Single<Int>?
    var value = 1

    func load() {
        request = Single.create { observer in
            observer(.success(self.value))
            return Disposables.create()
        }
    }
}
