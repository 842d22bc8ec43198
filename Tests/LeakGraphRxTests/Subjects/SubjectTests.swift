import LeakGraph
import LeakGraphRx
import Testing

@Suite("Subjects", .serialized)
struct SubjectTests {
    @Test("PublishSubject sends each event to the observers subscribed at that time")
    func publishLateSubscribers() {
        let subject = PublishSubject<Int>()
        let early = Recorder<Int>()
        let late = Recorder<Int>()
        let first = subject.subscribe(early)
        subject.onNext(1)
        let second = subject.subscribe(late)
        subject.onNext(2)
        subject.onCompleted()
        subject.onNext(3)
        #expect(early.events == [.next(1), .next(2), .completed])
        #expect(late.events == [.next(2), .completed])
        let afterTerminal = Recorder<Int>()
        _ = subject.subscribe(afterTerminal)
        #expect(afterTerminal.events == [.completed])
        first.dispose()
        second.dispose()
    }

    @Test("PublishSubject stops sending to a disposed subscription and keeps the others")
    func publishDispose() {
        let subject = PublishSubject<Int>()
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        let subscriptionA = subject.subscribe(a)
        let subscriptionB = subject.subscribe(b)
        subject.onNext(1)
        subscriptionA.dispose()
        subscriptionA.dispose()
        #expect(subject.hasObservers)
        subject.onNext(2)
        subscriptionB.dispose()
        #expect(!subject.hasObservers)
        #expect(a.events == [.next(1)])
        #expect(b.events == [.next(1), .next(2)])
    }

    @Test("PublishSubject error reaches current and late subscribers")
    func publishError() {
        let subject = PublishSubject<Int>()
        let early = Recorder<Int>()
        _ = subject.subscribe(early)
        subject.onError(TestError())
        subject.onCompleted()
        let late = Recorder<Int>()
        _ = subject.subscribe(late)
        #expect(early.events == [.error("TestError")])
        #expect(late.events == [.error("TestError")])
    }

    @Test("a subject may emit from inside its own subscriber without deadlocking")
    func reentrantEmission() {
        let subject = PublishSubject<Int>()
        let log = Log()
        let subscription = subject.subscribe(onNext: { value in
            log.append("\(value)")
            if value < 3 { subject.onNext(value + 1) }
        })
        subject.onNext(1)
        #expect(log.entries == ["1", "2", "3"])
        subscription.dispose()
    }

    @Test("a subscriber may dispose its own subscription and subscribe others from inside onNext")
    func reentrantSubscribe() {
        let subject = PublishSubject<Int>()
        let log = Log()
        nonisolated(unsafe) var subscription: Disposable?
        subscription = subject.subscribe(onNext: { value in
            log.append("a\(value)")
            subscription?.dispose()
            _ = subject.subscribe(onNext: { log.append("b\($0)") })
        })
        subject.onNext(1)
        subject.onNext(2)
        #expect(log.entries == ["a1", "b2"])
        subject.onCompleted()
    }

    @Test("BehaviorSubject replays its current value to new subscribers")
    func behaviorValue() throws {
        let subject = BehaviorSubject(value: 0)
        let a = Recorder<Int>()
        _ = subject.subscribe(a)
        subject.onNext(1)
        let b = Recorder<Int>()
        _ = subject.subscribe(b)
        #expect(try subject.value() == 1)
        subject.onCompleted()
        let c = Recorder<Int>()
        _ = subject.subscribe(c)
        #expect(a.events == [.next(0), .next(1), .completed])
        #expect(b.events == [.next(1), .completed])
        #expect(c.events == [.completed])
        #expect(try subject.value() == 1)
    }

    @Test("BehaviorSubject.value() throws the error it terminated with, or after dispose")
    func behaviorValueThrows() {
        let subject = BehaviorSubject(value: 0)
        subject.onError(TestError())
        #expect(throws: TestError.self) { try subject.value() }
        let disposed = BehaviorSubject(value: 0)
        disposed.dispose()
        #expect(throws: RxError.self) { try disposed.value() }
    }

    @Test("ReplaySubject replays the last bufferSize elements, then the terminal event")
    func replayBuffer() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        let a = Recorder<Int>()
        _ = subject.subscribe(a)
        subject.onNext(4)
        subject.onCompleted()
        let b = Recorder<Int>()
        _ = subject.subscribe(b)
        #expect(a.events == [.next(2), .next(3), .next(4), .completed])
        #expect(b.events == [.next(3), .next(4), .completed])
        let unbounded = ReplaySubject<Int>.createUnbounded()
        for value in 1...5 { unbounded.onNext(value) }
        let c = Recorder<Int>()
        _ = unbounded.subscribe(c)
        #expect(c.elements == [1, 2, 3, 4, 5])
    }

    @Test("a subject is an observer: subscribe(subject) forwards events into it")
    func subjectAsObserver() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = subject.subscribe(recorder)
        _ = Observable.of(1, 2).subscribe(subject)
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test("a subject reports its observers and each subscription's subject edge, and clears them")
    func subjectEdges() {
        nonisolated(unsafe) var subject: PublishSubject<Int>?
        nonisolated(unsafe) var subscription: Disposable?
        let during = lifecycle {
            subject = PublishSubject<Int>()
            subscription = subject!.subscribe(onNext: { _ in })
        }
        let mine = Set(during.alive.map(\.id))
        // Declared edges: whole-process tracking also reads the subject's lock state.
        #expect(
            during.snapshot.edges.filter { mine.contains($0.from) && $0.origin == .declared }.map(\.label).sorted() == [
                "observers", "subject",
            ])
        subscription?.dispose()
        let after = lifecycle {}
        _ = after
        let edges = snapshotLock.withLock { _ in LeakGraph.snapshot().edges.filter { mine.contains($0.from) } }
        #expect(edges.isEmpty)
        withExtendedLifetime(subject) {}
    }

    @Test("lifecycle: each subject lets go of its observers on completion, error and dispose")
    func subjectLifecycle() {
        let completed = lifecycle {
            let subject = BehaviorSubject(value: 0)
            _ = subject.subscribe(onNext: { _ in })
            subject.onCompleted()
        }
        #expect(completed.aliveTypes == [])
        let errored = lifecycle {
            let subject = ReplaySubject<Int>.create(bufferSize: 1)
            _ = subject.subscribe(onNext: { _ in })
            subject.onError(TestError())
        }
        #expect(errored.aliveTypes == [])
        let disposed = lifecycle {
            let subject = PublishSubject<Int>()
            subject.subscribe(onNext: { _ in }).dispose()
        }
        #expect(disposed.aliveTypes == [])
        let never = lifecycle {
            let subject = BehaviorSubject(value: 0)
            _ = subject.subscribe(onNext: { _ in })
        }
        // A direct subscription has no sink: the subject holds the observer, the dropped
        // token held the subject; nothing is left once both are dropped.
        #expect(never.aliveTypes == [])
        let retained = leakingLifecycle {
            let subject = BehaviorSubject(value: 0)
            _ = subject.map { $0 }.subscribe(onNext: { _ in })
        }
        #expect(retained.leakedCycles.count == 1)
        #expect(
            retained.leakedCycles.first.map(retained.memberTypes) == [
                "BehaviorSubject", "MapSink", "SinkDisposer", "SubjectSubscription",
            ])
    }

    @Test("observers removed in any order: the rest still receive events in subscription order, once each")
    func manyObserversRemovedInAnyOrder() {
        let subject = PublishSubject<Int>()
        let log = Log()
        let subscriptions = (0..<100).map { index in
            subject.subscribe(onNext: { value in log.append("\(index):\(value)") })
        }
        var generator = SystemRandomNumberGenerator()
        var order = Array(0..<100).shuffled(using: &generator)
        let removed = Set(order.prefix(70))
        for index in order.prefix(70) { subscriptions[index].dispose() }
        // Disposing twice is harmless and removes nothing else.
        subscriptions[order[0]].dispose()
        subject.onNext(7)
        let expected = (0..<100).filter { !removed.contains($0) }.map { "\($0):7" }
        #expect(log.entries == expected)
        #expect(subject.hasObservers)
        order = Array(order.dropFirst(70))
        for index in order { subscriptions[index].dispose() }
        #expect(!subject.hasObservers)
        subject.onNext(8)
        #expect(log.entries == expected)
    }
}
