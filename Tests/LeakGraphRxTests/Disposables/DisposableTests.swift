import Foundation
import LeakGraph
import LeakGraphRx
import Testing

@Suite("disposables", .serialized)
struct DisposableTests {
    @Test("Disposables.create(with:) runs once; create(_:_:) and variadic dispose in order")
    func factories() {
        let log = Log()
        let single = Disposables.create { log.append("a") }
        single.dispose()
        single.dispose()
        #expect(single.isDisposed)
        Disposables.create(Disposables.create { log.append("b") }, Disposables.create { log.append("c") }).dispose()
        Disposables.create(
            Disposables.create { log.append("d") }, Disposables.create { log.append("e") },
            Disposables.create { log.append("f") }, Disposables.create { log.append("g") }
        ).dispose()
        Disposables.create().dispose()
        #expect(log.entries == ["a", "b", "c", "d", "e", "f", "g"])
    }

    @Test("CompositeDisposable: insert returns a key, remove(for:) disposes that member, insert after dispose disposes")
    func composite() {
        let log = Log()
        let group = CompositeDisposable()
        let key = group.insert(Disposables.create { log.append("a") })
        group.insert(Disposables.create { log.append("b") })
        #expect(group.count == 2)
        group.remove(for: key!)
        #expect(log.entries == ["a"])
        group.dispose()
        #expect(group.isDisposed)
        #expect(log.entries == ["a", "b"])
        #expect(group.insert(Disposables.create { log.append("c") }) == nil)
        #expect(log.entries == ["a", "b", "c"])
    }

    @Test("SerialDisposable: assigning disposes the previous; after dispose, assignments are disposed at once")
    func serial() {
        let log = Log()
        let serial = SerialDisposable()
        serial.disposable = Disposables.create { log.append("a") }
        serial.disposable = Disposables.create { log.append("b") }
        #expect(log.entries == ["a"])
        serial.dispose()
        serial.disposable = Disposables.create { log.append("c") }
        #expect(log.entries == ["a", "b", "c"])
        #expect(serial.isDisposed)
    }

    @Test("DisposeBag disposes its members when released; edges follow")
    func disposeBag() {
        let log = Log()
        nonisolated(unsafe) var bag: DisposeBag? = DisposeBag()
        let outcome = lifecycle {
            Disposables.create { log.append("a") }.disposed(by: bag!)
            bag!.insert(Disposables.create { log.append("b") })
        }
        #expect(outcome.aliveTypes == ["AnonymousDisposable", "AnonymousDisposable"])
        bag = nil
        // Waits for the members to go (a snapshot elsewhere may hold the bag for a moment).
        #expect(liveObjects(in: outcome.scope).isEmpty)
        #expect(log.entries == ["a", "b"])
    }

    @Test("composite and serial disposables report their members and drop the edges on dispose")
    func disposableEdges() {
        nonisolated(unsafe) var group: CompositeDisposable?
        let outcome = lifecycle {
            group = CompositeDisposable()
            let serial = SerialDisposable()
            serial.disposable = Disposables.create {}
            group!.insert(serial)
        }
        let ids = Set(outcome.alive.map(\.id))
        // Declared edges: whole-process tracking also reads the lock state each disposable keeps.
        #expect(
            outcome.snapshot.edges.filter { ids.contains($0.from) && $0.origin == .declared }.map(\.label) == [
                "disposables", "disposables",
            ])
        group?.dispose()
        let after = snapshotLock.withLock { _ in LeakGraph.snapshot(options: .declaredOnly) }
        #expect(after.edges.filter { ids.contains($0.from) }.isEmpty)
        group = nil
    }

    @Test("dispose is safe from many threads at once and runs the action once")
    func concurrentDispose() async {
        let log = Log()
        for _ in 0..<50 {
            let subscription = SendableDisposable(
                Observable<Int>.create { _ in Disposables.create { log.append("x") } }
                    .map { $0 }.subscribe(onNext: { _ in }))
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { subscription.disposable.dispose() } }
            }
        }
        #expect(log.entries.count == 50)
    }
}

/// Hands a disposable to other tasks (dispose is thread safe).
struct SendableDisposable: @unchecked Sendable {
    let disposable: Disposable
    init(_ disposable: Disposable) { self.disposable = disposable }
}

@Suite("RxSwift's other disposables and the bag's builders")
struct MoreDisposableTests {
    @Test("BooleanDisposable remembers; ScheduledDisposable disposes once, on its scheduler")
    func booleanAndScheduled() {
        let flag = BooleanDisposable()
        #expect(!flag.isDisposed)
        flag.dispose()
        #expect(flag.isDisposed)
        #expect(BooleanDisposable(isDisposed: true).isDisposed)
        let scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 0))
        let inner = BooleanDisposable()
        let scheduled = ScheduledDisposable(scheduler: scheduler, disposable: inner)
        scheduled.dispose()
        #expect(!inner.isDisposed && !scheduled.isDisposed)
        scheduler.start()
        #expect(inner.isDisposed && scheduled.isDisposed)
        scheduled.dispose()
        scheduler.start()
        #expect(scheduled.isDisposed)
    }

    @Test("a bag made with its disposables, by list, array or builder, disposes them all")
    func bagBuilders() {
        let flags = (0..<6).map { _ in BooleanDisposable() }
        do {
            let listed = DisposeBag(disposing: flags[0], flags[1])
            let built = DisposeBag {
                flags[2]
                flags[3]
            }
            built.insert {
                flags[4]
            }
            built.insert([flags[5]])
            withExtendedLifetime((listed, built)) { #expect(flags.allSatisfy { !$0.isDisposed }) }
        }
        #expect(flags.allSatisfy { $0.isDisposed })
    }
}

/// Types for ``TrackedObjectTypeTests``.
private class PlainBase {}
private final class PlainDisposable: PlainBase, Disposable { func dispose() {} }
private class TrackedBase: TrackedObject {}
private final class TrackedLeafType<Payload>: TrackedBase {}
private struct ValueDisposable: Disposable { func dispose() {} }
private enum Choice { case one, two }
private final class FoundationObject: NSObject {}

@Suite("which types are tracked objects")
struct TrackedObjectTypeTests {
    @Test("TrackedObject and its subclasses, generic and nested, are; every other kind of type is not")
    func answers() {
        #expect(isTrackedObjectType(TrackedObject.self))
        #expect(isTrackedObjectType(TrackedBase.self))
        #expect(isTrackedObjectType(TrackedLeafType<Int>.self))
        #expect(isTrackedObjectType(TrackedLeafType<[String: Double]>.self))
        #expect(isTrackedObjectType(SinkDisposer.self))
        #expect(isTrackedObjectType(PublishSubject<Int>.self))
        #expect(!isTrackedObjectType(PlainBase.self))
        #expect(!isTrackedObjectType(PlainDisposable.self))
        #expect(!isTrackedObjectType(FoundationObject.self))
        #expect(!isTrackedObjectType(ValueDisposable.self))
        #expect(!isTrackedObjectType(Choice.self))
        #expect(!isTrackedObjectType(Int.self))
        #expect(!isTrackedObjectType(String.self))
        #expect(!isTrackedObjectType((() -> Void).self))
        #expect(!isTrackedObjectType((Int, TrackedObject).self))
        #expect(!isTrackedObjectType(TrackedObject?.self))
        #expect(!isTrackedObjectType((any Disposable).self))
        #expect(!isTrackedObjectType(AnyObject.self))
        #expect(!isTrackedObjectType(TrackedObject.Type.self))
    }
}
