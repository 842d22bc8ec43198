import LeakGraph
import LeakGraphRx
import Testing

/// PublishRelay, BehaviorRelay, ReplayRelay and bind(to:): RxRelay's behaviour, and the leak a
/// forgotten binding makes.
@Suite("Relays", .serialized)
struct RelayTests {
    @Test("a PublishRelay sends to the current observers only")
    func publishRelay() {
        let relay = PublishRelay<Int>()
        relay.accept(1)
        let recorder = Recorder<Int>()
        let subscription = relay.subscribe(recorder)
        relay.accept(2)
        subscription.dispose()
        relay.accept(3)
        #expect(recorder.events == [.next(2)])
    }

    @Test("a BehaviorRelay holds its value and gives it to each new subscriber")
    func behaviorRelay() {
        let relay = BehaviorRelay(value: "a")
        #expect(relay.value == "a")
        let recorder = Recorder<String>()
        let subscription = relay.subscribe(recorder)
        relay.accept("b")
        #expect(relay.value == "b")
        #expect(recorder.events == [.next("a"), .next("b")])
        subscription.dispose()
    }

    @Test("a ReplayRelay replays its buffer (bounded or not) to each new subscriber")
    func replayRelay() {
        let bounded = ReplayRelay<Int>.create(bufferSize: 2)
        for element in 1...3 { bounded.accept(element) }
        let recorder = Recorder<Int>()
        let first = bounded.subscribe(recorder)
        #expect(recorder.events == [.next(2), .next(3)])
        let unbounded = ReplayRelay<Int>.createUnbound()
        for element in 1...3 { unbounded.accept(element) }
        let all = Recorder<Int>()
        let second = unbounded.subscribe(all)
        #expect(all.events == [.next(1), .next(2), .next(3)])
        first.dispose()
        second.dispose()
    }

    @Test("bind(to:) sends elements to every relay; completion ends the binding, not the relays")
    func bindToRelays() {
        let publish = PublishRelay<Int>()
        let behavior = BehaviorRelay(value: 0)
        let replay = ReplayRelay<Int>.createUnbound()
        let optional = BehaviorRelay<Int?>(value: nil)
        let recorder = Recorder<Int>()
        let watching = publish.subscribe(recorder)
        _ = Observable.of(1, 2).bind(to: publish)
        _ = Observable.of(3).bind(to: behavior, behavior)
        _ = Observable.of(4).bind(to: replay)
        _ = Observable.of(5).bind(to: optional)
        #expect(recorder.events == [.next(1), .next(2)])
        #expect(behavior.value == 3)
        #expect(optional.value == 5)
        let replayed = Recorder<Int>()
        let replaying = replay.subscribe(replayed)
        #expect(replayed.events == [.next(4)])
        publish.accept(9)
        #expect(recorder.events.last == .next(9))
        watching.dispose()
        replaying.dispose()
    }

    @Test("bind(to:) an observer forwards every event, completion included")
    func bindToObservers() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        let watching = subject.subscribe(recorder)
        _ = Observable.of(1).bind(to: subject)
        #expect(recorder.events == [.next(1), .completed])
        watching.dispose()
    }

    @Test("a direct binding of a subject holds no cycle: dropping both frees everything")
    func directBindingHoldsNoCycle() {
        let outcome = lifecycle {
            let source = PublishSubject<Int>()
            let relay = BehaviorRelay(value: 0)
            _ = source.bind(to: relay)
            source.onNext(1)
        }
        #expect(outcome.aliveTypes == [], "\(outcome.dump)")
    }

    @Test("a relay bound through an operator from a never-completing source, never disposed, is leaked with it")
    func forgottenBindingLeaks() {
        let outcome = leakingLifecycle {
            let source = PublishSubject<Int>()
            let relay = BehaviorRelay(value: 0)
            _ = source.map { $0 * 2 }.bind(to: relay)
            source.onNext(1)
        }
        #expect(outcome.leakedCycles.count == 1, "\(outcome.dump)")
        let relay = outcome.alive.first { bareName($0.type) == "BehaviorRelay" }
        #expect(relay.map { outcome.report.leakedObjectIDs.contains($0.id) } == true, "\(outcome.dump)")
    }

    @Test("the same binding disposed by a bag that is dropped leaves nothing alive")
    func baggedBindingIsReleased() {
        let outcome = lifecycle {
            let source = PublishSubject<Int>()
            let relay = BehaviorRelay(value: 0)
            var bag: DisposeBag? = DisposeBag()
            source.map { $0 * 2 }.bind(to: relay).disposed(by: bag!)
            source.onNext(1)
            bag = nil
        }
        #expect(outcome.aliveTypes == [], "\(outcome.dump)")
    }
}
