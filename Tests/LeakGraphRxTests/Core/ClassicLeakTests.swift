import LeakGraph
import LeakGraphRx
import Testing

/// A view-model-like object that stores an operator chain on itself.
final class Screen: TrackedObject {
    var signal: Observable<Int>?
    var other = 1
}

/// Keeps subscription tokens in a weak table.
final class TokenManager: TrackedObject {
    struct WeakToken { weak var token: Token? }
    var tokens: [WeakToken] = []
}

/// Holds its manager strongly, and a subscription.
final class Token: TrackedObject, Disposable {
    let manager: TokenManager
    let subscription: Disposable
    init(manager: TokenManager, subscription: Disposable) {
        self.manager = manager
        self.subscription = subscription
        super.init()
    }
    func dispose() { subscription.dispose() }
}

@Suite("Classic subscription leaks", .serialized)
struct ClassicLeakTests {
    @Test("a dropped subscription to a never-completing create+map is a leaked Sink <-> SinkDisposer cycle")
    func droppedSubscriptionLeaks() {
        let outcome = leakingLifecycle {
            _ = Observable<Int>.create { _ in Disposables.create() }.map { $0 + 1 }.subscribe(onNext: { _ in })
        }
        let leaked = outcome.leakedCycles
        #expect(leaked.count == 1)
        let members = leaked.first.map(outcome.memberTypes) ?? []
        #expect(members.contains("SinkDisposer"))
        #expect(members.contains("MapSink"))
        #expect(members.contains("AnonymousObservableSink"))
        #expect(outcome.report.leakedObjectIDs.isSuperset(of: outcome.alive.map(\.id)))
        #expect(leaked.first?.loopDescription.contains("SinkDisposer —sink→") == true)
    }

    @Test("the same subscription disposed by a released DisposeBag leaves nothing alive")
    func disposeBagReleased() {
        let outcome = lifecycle {
            let bag = DisposeBag()
            Observable<Int>.create { _ in Disposables.create() }.map { $0 + 1 }.subscribe(onNext: { _ in })
                .disposed(by: bag)
        }
        #expect(outcome.aliveTypes == [])
        #expect(outcome.leakedCycles.isEmpty)
    }

    @Test("while the bag is alive, the subscription is retained by the bag, not leaked")
    func disposeBagAlive() {
        var bag: DisposeBag? = DisposeBag()
        let outcome = lifecycle {
            Observable<Int>.create { _ in Disposables.create() }.map { $0 + 1 }.subscribe(onNext: { _ in })
                .disposed(by: bag!)
        }
        #expect(outcome.leakedCycles.isEmpty)
        #expect(outcome.cycles.count == 1)
        #expect(outcome.cycles.first?.leaked == false)
        bag = nil
        #expect(liveObjects(in: outcome.scope).isEmpty)
    }

    @Test("a dropped subscription to a completing source leaves nothing alive")
    func completingSource() {
        let outcome = lifecycle {
            _ = Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }.map { $0 + 1 }.subscribe(onNext: { _ in })
        }
        #expect(outcome.aliveTypes == [])
        #expect(outcome.report.leakedObjectIDs.isDisjoint(with: outcome.alive.map(\.id)))
    }

    @Test("a PublishSubject released without completing leaks its subscription cycle")
    func subjectReleasedWithoutCompleting() {
        let outcome = leakingLifecycle {
            let subject = PublishSubject<Int>()
            _ = subject.map { $0 * 2 }.subscribe(onNext: { _ in })
            subject.onNext(1)
        }
        let leaked = outcome.leakedCycles
        #expect(leaked.count == 1)
        let members = leaked.first.map(outcome.memberTypes) ?? []
        #expect(members == ["MapSink", "PublishSubject", "SinkDisposer", "SubjectSubscription"])
    }

    @Test("a PublishSubject completed before being released leaves nothing alive")
    func subjectCompleted() {
        let outcome = lifecycle {
            let subject = PublishSubject<Int>()
            _ = subject.map { $0 * 2 }.subscribe(onNext: { _ in })
            subject.onNext(1)
            subject.onCompleted()
        }
        #expect(outcome.aliveTypes == [])
    }

    @inline(never)
    private static func bindStrongly(_ screen: Screen, _ source: Observable<Int>) {
        screen.signal = source.flatMap { _ in Observable.just(screen.other) }
    }

    @inline(never)
    private static func bindWeakly(_ screen: Screen, _ source: Observable<Int>) {
        screen.signal = source.flatMap { [weak screen] _ in Observable.just(screen?.other ?? 0) }
    }

    @Test("an object storing source.flatMap { self } on itself is a leaked cycle through a capture edge")
    func flatMapCapturingSelf() {
        let outcome = lifecycleIgnoringForeignCaptures {
            let screen = Screen()
            Self.bindStrongly(screen, PublishSubject<Int>().asObservable())
        }
        let leaked = outcome.leakedCycles
        #expect(leaked.count == 1, "\(outcome.dump)")
        let members = leaked.first.map(outcome.memberTypes) ?? []
        #expect(members.contains("Screen"))
        #expect(members.contains("FlatMap"))
        #expect(leaked.first?.path.contains { $0.label == "capture" } == true)
    }

    @Test("the same with [weak self] leaves nothing alive")
    func flatMapCapturingWeakSelf() {
        let outcome = lifecycle {
            let screen = Screen()
            Self.bindWeakly(screen, PublishSubject<Int>().asObservable())
        }
        #expect(outcome.aliveTypes == [])
    }

    @Test("share(replay: 1, scope: .forever) over a never-completing source with the subscription dropped leaks")
    func shareForeverLeaks() {
        let outcome = lifecycle {
            let shared = Observable<Int>.create { observer in
                observer.onNext(1)
                return Disposables.create()
            }.share(replay: 1, scope: .forever)
            _ = shared.subscribe(onNext: { _ in })
        }
        #expect(!outcome.leakedCycles.isEmpty, "\(outcome.dump)")
        #expect(outcome.report.leakedObjectIDs.isSuperset(of: outcome.alive.map(\.id)))
        #expect(!outcome.alive.isEmpty)
    }

    @Test("a manager holding tokens weakly while each token holds it strongly does not leak")
    func weakTokenTable() {
        var tokens: [Token] = []
        let outcome = lifecycle {
            let manager = TokenManager()
            let subject = PublishSubject<Int>()
            for _ in 0..<3 {
                let token = Token(manager: manager, subscription: subject.subscribe(onNext: { _ in }))
                manager.tokens.append(.init(token: token))
                tokens.append(token)
            }
        }
        #expect(outcome.leakedCycles.isEmpty)
        #expect(outcome.report.leakedObjectIDs.isDisjoint(with: outcome.alive.map(\.id)))
        tokens.forEach { $0.dispose() }
        tokens = []
        #expect(liveObjects(in: outcome.scope).isEmpty)
    }
}
