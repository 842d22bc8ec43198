import LeakGraph
import LeakGraphRx
import Testing

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

@Suite("subscribe", .serialized)
struct SubscribeTests {
    @Test("on completion: onCompleted, then onDisposed, then the upstream's dispose action")
    func completionOrder() {
        let log = Log()
        let subject = PublishSubject<Int>()
        _ = Observable<Int>.create { observer in
            let inner = subject.subscribe(observer)
            return Disposables.create {
                log.append("upstream disposed")
                inner.dispose()
            }
        }.map { $0 }.subscribe(
            onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") })
        subject.onNext(1)
        subject.onCompleted()
        #expect(log.entries == ["next 1", "completed", "disposed", "upstream disposed"])
    }

    @Test("on dispose: the upstream's dispose action, then onDisposed; once")
    func disposeOrder() {
        let log = Log()
        let subscription = Observable<Int>.create { _ in Disposables.create { log.append("upstream disposed") } }
            .subscribe(onDisposed: { log.append("disposed") })
        subscription.dispose()
        subscription.dispose()
        #expect(log.entries == ["upstream disposed", "disposed"])
    }

    @Test("on error: onError, then onDisposed")
    func errorOrder() {
        let log = Log()
        _ = Observable<Int>.error(TestError()).subscribe(
            onError: { log.append("error \($0)") }, onDisposed: { log.append("disposed") })
        #expect(log.entries == ["error TestError", "disposed"])
    }

    @Test("subscribe(_ on:) receives events")
    func eventClosure() {
        let log = Log()
        _ = Observable.of(1).subscribe { event in log.append("\(event)") }
        #expect(log.entries == ["next(1)", "completed"])
    }

    @Test("subscribe(with:) holds the object weakly and passes it to the handlers")
    func subscribeWith() {
        final class Owner: TrackedObject, @unchecked Sendable { var seen: [Int] = [] }
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var owner: Owner? = Owner()
        weak let weakOwner = owner
        let subscription = subject.subscribe(with: owner!, onNext: { owner, value in owner.seen.append(value) })
        subject.onNext(1)
        #expect(owner?.seen == [1])
        owner = nil
        // A snapshot another test takes meanwhile may hold the owner for a moment: it is freed
        // when that snapshot lets go.
        for _ in 0..<200 where weakOwner != nil { usleep(5_000) }
        #expect(weakOwner == nil)
        subject.onNext(2)
        subscription.dispose()
    }

    @Test("AnyObserver(eventHandler:) and asObserver forward events")
    func anyObserver() {
        let log = Log()
        let observer = AnyObserver<Int> { log.append("\($0)") }
        observer.onNext(1)
        observer.asObserver().onCompleted()
        let subject = PublishSubject<Int>()
        _ = subject.subscribe(observer)
        subject.onNext(2)
        #expect(log.entries == ["next(1)", "completed", "next(2)"])
    }

    @Test("disposed(by:) records the bag → subscription edge with the call site when stacks are on")
    func bagEdge() {
        nonisolated(unsafe) var bag: DisposeBag? = DisposeBag()
        let outcome = lifecycle {
            PublishSubject<Int>().map { $0 }.subscribe(onNext: { _ in }).disposed(by: bag!)
        }
        let bagEdges = outcome.snapshot.edges.filter { $0.label == "bag" && outcome.alive.map(\.id).contains($0.to) }
        #expect(bagEdges.count == 1)
        if LeakGraph.stackCaptureMode != .off && LeakGraph.recordsEdgeSites {
            #expect(bagEdges.first?.site != nil)
        }
        bag = nil
        #expect(liveObjects(in: outcome.scope).isEmpty)
    }
}
