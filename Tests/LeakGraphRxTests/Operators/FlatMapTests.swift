import Dispatch
import LeakGraph
import LeakGraphRx
import LeakGraphTestSupport
import Testing

@Suite("flatMap, flatMapLatest, merge", .serialized)
struct FlatMapTests {
    @Test("flatMap merges inner elements and completes when the source and all inners completed")
    func flatMapCompletion() {
        let source = PublishSubject<Int>()
        let inners = [PublishSubject<Int>(), PublishSubject<Int>()]
        let recorder = Recorder<Int>()
        _ = source.flatMap { inners[$0] }.subscribe(recorder)
        source.onNext(0)
        source.onNext(1)
        inners[0].onNext(1)
        inners[1].onNext(2)
        source.onCompleted()
        inners[0].onCompleted()
        #expect(recorder.events == [.next(1), .next(2)])
        inners[1].onNext(3)
        inners[1].onCompleted()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test("flatMap: an inner error terminates and disposes the source and the other inners")
    func flatMapError() {
        let source = PublishSubject<Int>()
        let inners = [PublishSubject<Int>(), PublishSubject<Int>()]
        let recorder = Recorder<Int>()
        _ = source.flatMap { inners[$0] }.subscribe(recorder)
        source.onNext(0)
        source.onNext(1)
        inners[1].onError(TestError())
        #expect(recorder.events == [.error("TestError")])
        #expect(!source.hasObservers)
        #expect(!inners[0].hasObservers)
    }

    @Test("flatMap: a throwing selector terminates")
    func flatMapThrows() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2).flatMap { _ -> Observable<Int> in throw TestError() }.subscribe(recorder)
        #expect(recorder.events == [.error("TestError")])
    }

    @Test("flatMap over synchronous inners; re-entrant events are delivered after the current one")
    func flatMapSynchronous() {
        let recorder = Recorder<Int>()
        _ = Observable.of(1, 2).flatMap { Observable.of($0, $0 * 10) }.subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(10), .next(2), .next(20), .completed])
    }

    @Test("flatMapLatest forwards only the latest inner's elements")
    func flatMapLatest() {
        let source = PublishSubject<Int>()
        let inners = [PublishSubject<Int>(), PublishSubject<Int>()]
        let recorder = Recorder<Int>()
        _ = source.flatMapLatest { inners[$0] }.subscribe(recorder)
        source.onNext(0)
        inners[0].onNext(1)
        source.onNext(1)
        #expect(!inners[0].hasObservers)
        inners[0].onNext(2)
        inners[1].onNext(3)
        source.onCompleted()
        #expect(recorder.events == [.next(1), .next(3)])
        inners[1].onCompleted()
        #expect(recorder.events == [.next(1), .next(3), .completed])
    }

    @Test("merge: static variadic and instance forms")
    func merge() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = Observable.merge(a.asObservable(), b.asObservable()).subscribe(recorder)
        a.onNext(1)
        b.onNext(2)
        a.onCompleted()
        b.onNext(3)
        b.onCompleted()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        let nested = Recorder<Int>()
        _ = Observable.of(Observable.of(1), Observable.of(2)).merge().subscribe(nested)
        #expect(nested.events == [.next(1), .next(2), .completed])
    }

    @Test("merge serialises concurrent inner events")
    func mergeConcurrent() async {
        let subjects = (0..<4).map { _ in PublishSubject<Int>() }
        let recorder = Recorder<Int>()
        _ = Observable.merge(subjects.map { $0.asObservable() }).subscribe(recorder)
        await withTaskGroup(of: Void.self) { group in
            for subject in subjects {
                // Thread-safe, not Sendable (as in RxSwift): handed to the task unchecked.
                let shared = UncheckedSendable(subject)
                group.addTask {
                    for value in 0..<250 { shared.value.onNext(value) }
                    shared.value.onCompleted()
                }
            }
        }
        #expect(recorder.elements.count == 1000)
        #expect(recorder.events.last == .completed)
    }

    @Test("lifecycle of flatMap")
    func flatMapLifecycle() {
        expectStandardLifecycle(lifecycleEndings { $0.flatMap { Observable.just($0) }.subscribe(onNext: { _ in }) })
        let innerNever = leakingLifecycle {
            let subject = PublishSubject<Int>()
            _ = subject.flatMap { _ in Observable<Int>.never() }.subscribe(onNext: { _ in })
            subject.onNext(1)
            subject.onCompleted()
        }
        #expect(innerNever.leakedCycles.count == 1, "\(innerNever.dump)")
    }

    @Test("lifecycle of flatMapLatest")
    func flatMapLatestLifecycle() {
        expectStandardLifecycle(
            lifecycleEndings { $0.flatMapLatest { Observable.just($0) }.subscribe(onNext: { _ in }) })
    }
}

@Suite("concat", .serialized)
struct ConcatTests {
    @Test("concat subscribes to the next source when the previous completes")
    func concat() {
        let a = PublishSubject<Int>()
        let b = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        _ = a.concat(b).subscribe(recorder)
        b.onNext(0)
        a.onNext(1)
        #expect(!b.hasObservers)
        a.onCompleted()
        #expect(b.hasObservers)
        b.onNext(2)
        b.onCompleted()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test("static variadic concat of synchronous sources")
    func staticConcat() {
        let recorder = Recorder<Int>()
        _ = Observable.concat(Observable.of(1, 2), Observable.just(3), Observable.empty()).subscribe(recorder)
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test("an error stops the concatenation")
    func concatError() {
        let recorder = Recorder<Int>()
        _ = Observable.concat(Observable.of(1), Observable.error(TestError()), Observable.of(2)).subscribe(recorder)
        #expect(recorder.events == [.next(1), .error("TestError")])
    }

    @Test("many synchronous sources do not recurse")
    func manySources() {
        let recorder = Recorder<Int>()
        _ = Observable.concat((0..<10_000).map { Observable.just($0) }).subscribe(recorder)
        #expect(recorder.elements.count == 10_000)
    }

    @Test("lifecycle of concat")
    func concatLifecycle() {
        expectStandardLifecycle(lifecycleEndings { $0.concat(Observable.just(9)).subscribe(onNext: { _ in }) })
    }

    @Test("an inner subscription made for an element shares the outer subscription's allocation stack")
    func innerSubscriptionSharesTheOuterStack() {
        let subject = PublishSubject<Int>()
        let inner = PublishSubject<Int>()
        nonisolated(unsafe) var subscriptions: [Disposable] = []
        let outcome = lifecycle {
            subscriptions.append(subject.flatMap { _ in inner }.subscribe(onNext: { _ in }))
            subscriptions.append(subject.flatMapLatest { _ in inner }.subscribe(onNext: { _ in }))
            subject.onNext(1)
        }
        defer { subscriptions.forEach { $0.dispose() } }
        guard case .all = LeakGraph.stackCaptureMode else { return }
        func stack(of type: String) -> Int?? {
            outcome.alive.first { bareName($0.type) == type }.map(\.stack)
        }
        // The inner observers (made while the element was delivered, by another line) carry the
        // stack of the sink that made them.
        let outer = stack(of: "MergeSink")
        #expect(outer != nil && outer! != nil)
        #expect(stack(of: "MergeSinkIter") == outer)
        let switching = stack(of: "SwitchSink")
        #expect(switching != nil && switching! != nil)
        #expect(stack(of: "SwitchSinkIter") == switching)
    }

    /// A source whose subscription logs its disposal as `name`.
    private func logged(_ name: String, _ log: Log, _ subject: PublishSubject<Int>) -> Observable<Int> {
        Observable.create { observer in
            let subscription = subject.subscribe(observer)
            return Disposables.create {
                log.append(name)
                subscription.dispose()
            }
        }
    }

    @Test("disposing a flatMap disposes the source's subscription, then the inner ones in the order they were made")
    func disposalOrder() {
        // RxSwift's merge keeps them in a composite disposable: the source's first, then each
        // inner subscription as it was added.
        let log = Log()
        let source = PublishSubject<Int>()
        let inners = (0..<4).map { _ in PublishSubject<Int>() }
        let subscription = logged("source", log, source)
            .flatMap { [self] index in logged("inner \(index)", log, inners[index]) }
            .subscribe(onNext: { _ in })
        for index in [2, 0, 3, 1] { source.onNext(index) }
        inners[3].onCompleted()
        #expect(log.entries == ["inner 3"])
        subscription.dispose()
        #expect(log.entries == ["inner 3", "source", "inner 2", "inner 0", "inner 1"])
        #expect(!source.hasObservers && inners.allSatisfy { !$0.hasObservers })
    }

    @Test("an inner sequence that completes inside subscribe has its subscription disposed at once")
    func innerCompletingWhileSubscribed() {
        let log = Log()
        let recorder = Recorder<Int>()
        let source = PublishSubject<Int>()
        _ = source.concatMap { element in
            Observable<Int>.create { observer in
                observer.onNext(element)
                observer.onCompleted()
                return Disposables.create { log.append("inner \(element)") }
            }
        }.subscribe(recorder)
        source.onNext(1)
        source.onNext(2)
        #expect(log.entries == ["inner 1", "inner 2"])
        source.onCompleted()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test(
        "the source's subscription is disposed when it completes while inner sequences run; the merge completes with the last"
    )
    func sourceCompletingBeforeInners() {
        let log = Log()
        let recorder = Recorder<Int>()
        let source = PublishSubject<Int>()
        let inner = PublishSubject<Int>()
        _ = logged("source", log, source).flatMap { _ in inner }.subscribe(recorder)
        source.onNext(0)
        source.onCompleted()
        // As RxSwift's merge does: the source's subscription goes at once.
        #expect(log.entries == ["source"])
        inner.onNext(5)
        #expect(recorder.events == [.next(5)])
        inner.onCompleted()
        #expect(recorder.events == [.next(5), .completed])
        #expect(!inner.hasObservers)
    }

    @Test("a source that fails inside subscribe: its subscription is disposed when handed over")
    func sourceFailingWhileSubscribed() {
        let log = Log()
        let recorder = Recorder<Int>()
        _ = Observable<Int>.create { observer in
            observer.onError(TestError())
            return Disposables.create { log.append("source") }
        }.flatMap { Observable.just($0) }.subscribe(recorder)
        #expect(recorder.events == [.error("TestError")])
        #expect(log.entries == ["source"])
    }

    @Test("inner sequences completing in any order, from several threads: every element once, one completion")
    func innerCompletionsInAnyOrder() {
        let count = 2_000
        let recorder = Recorder<Int>()
        let source = PublishSubject<Int>()
        let inners = (0..<count).map { _ in PublishSubject<Int>() }
        _ = source.flatMap { inners[$0] }.subscribe(recorder)
        for index in 0..<count { source.onNext(index) }
        source.onCompleted()
        var generator = SeededGenerator(seed: 15)
        let order = Array(0..<count).shuffled(using: &generator)
        // Thread-safe, not Sendable (as in RxSwift): handed to the threads unchecked.
        let shared = UncheckedSendable(inners)
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for index in order[(part * count / 4)..<((part + 1) * count / 4)] {
                shared.value[index].onNext(index)
                shared.value[index].onCompleted()
            }
        }
        let events = recorder.events
        #expect(events.count == count + 1)
        #expect(events.last == .completed)
        #expect(Set(recorder.elements) == Set(0..<count))
        #expect(inners.allSatisfy { !$0.hasObservers })
    }

    @Test("a flatMap into a never-ending inner sequence, never disposed: a leaked cycle through its inner subscription")
    func leakThroughInnerSubscription() {
        let outcome = lifecycle {
            let source = PublishSubject<Int>()
            let inner = PublishSubject<Int>()
            _ = source.flatMap { _ in inner }.subscribe(onNext: { _ in })
            source.onNext(0)
        }
        let leaked = outcome.leakedCycles
        #expect(leaked.count == 1)
        guard let cycle = leaked.first else { return }
        let members = outcome.memberTypes(cycle)
        #expect(members.contains("MergeSink") && members.contains("MergeSinkIter"), "\(members)")
        let sinks = Set(outcome.alive.filter { bareName($0.type) == "MergeSink" }.map(\.id))
        #expect(outcome.snapshot.edges.contains { sinks.contains($0.from) && $0.label == "innerSubscription" })
        #expect(outcome.snapshot.edges.contains { sinks.contains($0.from) && $0.label == "sourceSubscription" })
    }
}
