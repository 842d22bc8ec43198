import LeakGraph
import LeakGraphRx
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
                group.addTask {
                    for value in 0..<250 { subject.onNext(value) }
                    subject.onCompleted()
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
}
