import LeakGraph
import LeakGraphRx
import Testing

@Suite("Infallible")
struct InfallibleTests {
    @Test("create, of and the operators deliver elements and the completion")
    func createAndOperators() {
        let log = Log()
        _ = Infallible<Int>.create { observer in
            observer(.next(1))
            observer(.next(2))
            observer(.completed)
            return Disposables.create()
        }.map { $0 * 10 }.filter { $0 > 10 }.startWith(5)
            .subscribe(onNext: { log.append("\($0)") }, onCompleted: { log.append("completed") })
        #expect(log.entries == ["5", "20", "completed"])
        let merged = Log()
        _ = Infallible.merge(.of(1, 2), .just(3)).scan(0) { $0 + $1 }.subscribe(onNext: { merged.append("\($0)") })
        // As RxSwift: `just` sends while being subscribed to, `of` from the trampoline after.
        #expect(merged.entries == ["3", "4", "6"])
    }

    @Test("asInfallible replaces an error: with an element, a fallback, or a recovery")
    func asInfallible() {
        let failing = Observable<Int>.of(1).concat(Observable.error(TestError()))
        let log = Log()
        _ = failing.asInfallible(onErrorJustReturn: -1).subscribe { event in
            switch event {
            case .next(let value): log.append("\(value)")
            case .completed: log.append("completed")
            }
        }
        _ = failing.asInfallible(onErrorFallbackTo: .of(7, 8)).subscribe(onNext: { log.append("\($0)") })
        _ = failing.asInfallible(onErrorRecover: { _ in .just(9) }).subscribe(onNext: { log.append("\($0)") })
        #expect(log.entries == ["1", "-1", "completed", "1", "7", "8", "1", "9"])
    }

    @Test("an infallible subscription dropped on a never-ending source is a leaked cycle, as any")
    func leakShows() {
        let endings = lifecycleEndings { subject in
            subject.asInfallible(onErrorJustReturn: 0).map { $0 + 1 }.subscribe(onNext: { _ in })
        }
        #expect(endings.completed.nothingAlive)
        #expect(endings.disposed.nothingAlive)
        #expect(!endings.never.leakedCycles.isEmpty)
    }
}

@Suite("RefCountDisposable")
struct RefCountDisposableTests {
    @Test("the underlying disposable goes when the primary and every handle are disposed")
    func refCounting() {
        let log = Log()
        let refCount = RefCountDisposable(disposable: Disposables.create { log.append("disposed") })
        let first = refCount.retain()
        let second = refCount.retain()
        refCount.dispose()
        first.dispose()
        first.dispose()
        #expect(log.entries == [])
        second.dispose()
        #expect(log.entries == ["disposed"])
        #expect(refCount.isDisposed)
        refCount.retain().dispose()
        #expect(log.entries == ["disposed"])
    }
}
