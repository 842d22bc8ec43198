import LeakGraph
import LeakGraphRx
import Testing

@Suite("AsyncSubject", .serialized)
struct AsyncSubjectTests {
    @Test("only the last element, and only on completion, to observers and to late subscribers")
    func lastElementOnCompletion() {
        let subject = AsyncSubject<Int>()
        let early = Recorder<Int>()
        _ = subject.subscribe(early)
        subject.onNext(1)
        subject.onNext(2)
        #expect(early.events.isEmpty)
        #expect(subject.hasObservers)
        subject.onCompleted()
        #expect(early.events == [.next(2), .completed])
        #expect(!subject.hasObservers)
        let late = Recorder<Int>()
        _ = subject.subscribe(late)
        #expect(late.events == [.next(2), .completed])
        subject.onNext(3)
        #expect(early.events == [.next(2), .completed])
    }

    @Test("no element: only the completion; an error at once, to late subscribers too")
    func emptyAndError() {
        let empty = AsyncSubject<Int>()
        let recorder = Recorder<Int>()
        _ = empty.subscribe(recorder)
        empty.onCompleted()
        #expect(recorder.events == [.completed])
        let failing = AsyncSubject<Int>()
        let failed = Recorder<Int>()
        _ = failing.subscribe(failed)
        failing.onNext(1)
        failing.onError(TestError())
        #expect(failed.events == [.error("TestError")])
        let late = Recorder<Int>()
        _ = failing.subscribe(late)
        #expect(late.events == [.error("TestError")])
    }

    @Test("a dropped subscription to a subject that never ends is a leaked cycle; disposing leaves nothing")
    func lifecycle() {
        let leaked = leakingLifecycle {
            let subject = AsyncSubject<Int>()
            _ = subject.map { $0 + 1 }.subscribe(onNext: { _ in })
        }
        #expect(leaked.leakedCycles.count == 1)
        #expect(leaked.leakedCycles.first.map(leaked.memberTypes)?.contains("AsyncSubject") == true)
        let disposed = LeakGraphRxTests.lifecycle {
            let subject = AsyncSubject<Int>()
            subject.map { $0 + 1 }.subscribe(onNext: { _ in }).dispose()
        }
        #expect(disposed.nothingAlive)
    }
}
