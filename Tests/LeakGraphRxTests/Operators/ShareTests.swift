import LeakGraph
import LeakGraphRx
import Testing

@Suite("share, publish, replay, connect", .serialized)
struct ShareTests {
    @Test("share subscribes to the source once for all subscribers and disconnects after the last")
    func shareRefCount() {
        let log = Log()
        let source = PublishSubject<Int>()
        let shared = Observable<Int>.create { observer in
            log.append("subscribed")
            let subscription = source.subscribe(observer)
            return Disposables.create {
                log.append("disposed")
                subscription.dispose()
            }
        }.share()
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        let first = shared.subscribe(a)
        let second = shared.subscribe(b)
        source.onNext(1)
        first.dispose()
        source.onNext(2)
        second.dispose()
        #expect(log.entries == ["subscribed", "disposed"])
        #expect(a.events == [.next(1)])
        #expect(b.events == [.next(1), .next(2)])
        _ = shared.subscribe(onNext: { _ in }).dispose()
        #expect(log.entries == ["subscribed", "disposed", "subscribed", "disposed"])
    }

    @Test("share(replay: 1) replays the latest element to late subscribers while connected")
    func shareReplay() {
        let source = PublishSubject<Int>()
        let shared = source.share(replay: 1)
        let a = Recorder<Int>()
        let first = shared.subscribe(a)
        source.onNext(1)
        source.onNext(2)
        let b = Recorder<Int>()
        let second = shared.subscribe(b)
        #expect(b.events == [.next(2)])
        first.dispose()
        second.dispose()
        let c = Recorder<Int>()
        _ = shared.subscribe(c)
        #expect(c.events == [], "whileConnected drops the buffer when the last subscriber leaves")
    }

    @Test("share(replay: 1, scope: .forever) keeps the buffer across reconnections")
    func shareForever() {
        let source = PublishSubject<Int>()
        let shared = source.share(replay: 1, scope: .forever)
        let first = shared.subscribe(onNext: { _ in })
        source.onNext(5)
        first.dispose()
        let late = Recorder<Int>()
        let second = shared.subscribe(late)
        #expect(late.events == [.next(5)])
        second.dispose()
    }

    @Test(
        "publish multicasts only after connect; a connection that ended is forgotten: a late subscriber waits for the next one, which runs the source again"
    )
    func publish() {
        let published = Observable.of(1, 2).publish()
        let a = Recorder<Int>()
        _ = published.subscribe(a)
        #expect(a.events == [])
        _ = published.connect()
        #expect(a.events == [.next(1), .next(2), .completed])
        // As RxSwift: each connection multicasts through a subject of its own.
        let late = Recorder<Int>()
        _ = published.subscribe(late)
        #expect(late.events == [])
        _ = published.connect()
        #expect(late.events == [.next(1), .next(2), .completed])
        #expect(a.events == [.next(1), .next(2), .completed])
    }

    @Test("replay(n) replays the last n elements; disposing the connection disconnects")
    func replay() {
        let source = PublishSubject<Int>()
        let replayed = source.replay(2)
        let connection = replayed.connect()
        #expect(source.hasObservers)
        source.onNext(1)
        source.onNext(2)
        source.onNext(3)
        let late = Recorder<Int>()
        _ = replayed.subscribe(late)
        #expect(late.events == [.next(2), .next(3)])
        connection.dispose()
        #expect(!source.hasObservers)
    }

    @Test(
        "lifecycle of share: complete, error and dispose release everything; never leaks, the connection ⇄ source subject loop keeping the subscription alive"
    )
    func shareLifecycle() {
        for endings in [
            lifecycleEndings { $0.share().subscribe(onNext: { _ in }) },
            lifecycleEndings { $0.share(replay: 1).subscribe(onNext: { _ in }) },
        ] {
            #expect(endings.completed.aliveTypes == [], "after completion")
            #expect(endings.errored.aliveTypes == [], "after error")
            #expect(endings.disposed.aliveTypes == [], "after dispose")
            let never = endings.never
            #expect(never.leakedCycles.count == 1, "\(never.dump)")
            if let cycle = never.leakedCycles.first {
                let members = never.memberTypes(cycle)
                for type in ["ShareConnection", "PublishSubject", "SubjectSubscription"] {
                    #expect(members.contains(type), "\(members)")
                }
            }
            // Everything left, the dropped subscription's sink included, is reported leaked.
            #expect(never.alive.map(\.type).contains { $0.hasPrefix("AnonymousObserver") || $0.contains("Sink") })
            #expect(never.report.leakedObjectIDs.isSuperset(of: never.alive.map(\.id)), "\(never.dump)")
        }
    }

    @Test("lifecycle of publish + connect: the connection is disposed by completion or dispose")
    func publishLifecycle() {
        let completed = lifecycle {
            let subject = PublishSubject<Int>()
            let published = subject.publish()
            _ = published.subscribe(onNext: { _ in })
            _ = published.connect()
            subject.onCompleted()
        }
        #expect(completed.aliveTypes == [])
        let disposed = lifecycle {
            let subject = PublishSubject<Int>()
            let published = subject.publish()
            let subscription = published.subscribe(onNext: { _ in })
            published.connect().dispose()
            subscription.dispose()
        }
        #expect(disposed.aliveTypes == [])
        let never = leakingLifecycle {
            let subject = PublishSubject<Int>()
            let published = subject.replay(1)
            _ = published.connect()
        }
        #expect(never.leakedCycles.count == 1, "\(never.dump)")
    }
}
