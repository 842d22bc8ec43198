import LeakGraph
import LeakGraphRx
import OpenCombine

/// The LeakGraphRx variants of every Rx case: tracking on with the default stack mode (all:32
/// unless `LEAKGRAPH_STACKS` says otherwise), tracking on without stacks, tracking off.
private let rxVariants: [(suffix: String, variant: String, tracking: Bool, stacks: StackCaptureMode?)] = [
    ("on", "LeakGraphRx, tracking on (default stacks)", true, nil),
    ("on-nostacks", "LeakGraphRx, tracking on, LEAKGRAPH_STACKS=off", true, .off),
    ("off", "LeakGraphRx, tracking off", false, .off),
]

/// One Rx scenario: its LeakGraphRx body and OpenCombine's nearest equivalent.
private struct RxScenario {
    let name: String
    let group: String
    let unit: String
    let iterations: Int
    /// Runs `n` operations with LeakGraphRx (tracking configured by the caller).
    let rx: (Int) -> Sample
    /// Runs `n` operations with OpenCombine.
    let combine: (Int) -> Sample
}

private func lifecycleScenarios() -> [RxScenario] {
    [
        RxScenario(
            name: "subject-lifecycle", group: "subject → subscribe → 10 events → dispose", unit: "subscription",
            iterations: 100_000,
            rx: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let subject = PublishSubject<Int>()
                        let subscription = subject.subscribe(onNext: { counter.value &+= $0 })
                        for i in 0..<10 { subject.onNext(i) }
                        subscription.dispose()
                    }
                }
            },
            combine: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let subject = PassthroughSubject<Int, Never>()
                        let subscription = subject.sink { counter.value &+= $0 }
                        for i in 0..<10 { subject.send(i) }
                        subscription.cancel()
                    }
                }
            }),
        RxScenario(
            name: "mapfilter-lifecycle", group: "subject.map.filter → subscribe → 10 events → dispose",
            unit: "subscription", iterations: 100_000,
            rx: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let subject = PublishSubject<Int>()
                        let subscription = subject.map { $0 &* 2 }.filter { $0 >= 0 }
                            .subscribe(onNext: { counter.value &+= $0 })
                        for i in 0..<10 { subject.onNext(i) }
                        subscription.dispose()
                    }
                }
            },
            combine: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let subject = PassthroughSubject<Int, Never>()
                        let subscription = subject.map { $0 &* 2 }.filter { $0 >= 0 }
                            .sink { counter.value &+= $0 }
                        for i in 0..<10 { subject.send(i) }
                        subscription.cancel()
                    }
                }
            }),
        RxScenario(
            name: "create-lifecycle",
            group: "create (10 events + completed) .map.filter → subscribe (OpenCombine: (0..<10).publisher)",
            unit: "subscription", iterations: 100_000,
            rx: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let source = Observable<Int>.create { observer in
                            for i in 0..<10 { observer.onNext(i) }
                            observer.onCompleted()
                            return Disposables.create()
                        }
                        let subscription = source.map { $0 &* 2 }.filter { $0 >= 0 }
                            .subscribe(onNext: { counter.value &+= $0 })
                        subscription.dispose()
                    }
                }
            },
            combine: { n in
                let counter = Counter()
                return measure(n) {
                    for _ in 0..<n {
                        let subscription = (0..<10).publisher.map { $0 &* 2 }.filter { $0 >= 0 }
                            .sink { counter.value &+= $0 }
                        subscription.cancel()
                    }
                }
            }),
        RxScenario(
            name: "disposebag-3",
            group: "3 subscriptions in a DisposeBag, bag dropped (OpenCombine: Set<AnyCancellable>)",
            unit: "bag", iterations: 100_000,
            rx: { n in
                let counter = Counter()
                let subject = PublishSubject<Int>()
                return measure(n) {
                    for _ in 0..<n {
                        let bag = DisposeBag()
                        subject.subscribe(onNext: { counter.value &+= $0 }).disposed(by: bag)
                        subject.subscribe(onNext: { counter.value &+= $0 }).disposed(by: bag)
                        subject.subscribe(onNext: { counter.value &+= $0 }).disposed(by: bag)
                        blackHole(bag)
                    }
                }
            },
            combine: { n in
                let counter = Counter()
                let subject = PassthroughSubject<Int, Never>()
                return measure(n) {
                    for _ in 0..<n {
                        var bag = Set<AnyCancellable>()
                        subject.sink { counter.value &+= $0 }.store(in: &bag)
                        subject.sink { counter.value &+= $0 }.store(in: &bag)
                        subject.sink { counter.value &+= $0 }.store(in: &bag)
                        blackHole(bag)
                    }
                }
            }),
    ]
}

private func eventScenarios() -> [RxScenario] {
    [
        RxScenario(
            name: "event-mapfilter", group: "one event through map.filter (subscribed once)", unit: "event",
            iterations: 2_000_000,
            rx: { n in
                let counter = Counter()
                let subject = PublishSubject<Int>()
                let subscription = subject.map { $0 &* 2 }.filter { $0 >= 0 }.subscribe(onNext: { counter.value &+= $0 }
                )
                let sample = measure(n) { for i in 0..<n { subject.onNext(i) } }
                subscription.dispose()
                blackHole(counter.value)
                return sample
            },
            combine: { n in
                let counter = Counter()
                let subject = PassthroughSubject<Int, Never>()
                let subscription = subject.map { $0 &* 2 }.filter { $0 >= 0 }.sink { counter.value &+= $0 }
                let sample = measure(n) { for i in 0..<n { subject.send(i) } }
                subscription.cancel()
                blackHole(counter.value)
                return sample
            }),
        RxScenario(
            name: "event-flatmap", group: "one event through flatMap { just($0) } (subscribed once)", unit: "event",
            iterations: 300_000,
            rx: { n in
                let counter = Counter()
                let subject = PublishSubject<Int>()
                let subscription = subject.flatMap { Observable.just($0) }.subscribe(onNext: { counter.value &+= $0 })
                let sample = measure(n) { for i in 0..<n { subject.onNext(i) } }
                subscription.dispose()
                blackHole(counter.value)
                return sample
            },
            combine: { n in
                let counter = Counter()
                let subject = PassthroughSubject<Int, Never>()
                let subscription = subject.flatMap { Just($0) }.sink { counter.value &+= $0 }
                let sample = measure(n) { for i in 0..<n { subject.send(i) } }
                subscription.cancel()
                blackHole(counter.value)
                return sample
            }),
    ]
}

func rxCases() -> [BenchCase] {
    var cases: [BenchCase] = []
    for scenario in lifecycleScenarios() + eventScenarios() {
        for variant in rxVariants {
            cases.append(
                BenchCase(
                    name: "\(scenario.name)-rx-\(variant.suffix)", group: scenario.group, variant: variant.variant,
                    unit: scenario.unit, iterations: scenario.iterations, quickIterations: 100
                ) { context in
                    configure(tracking: variant.tracking, stacks: variant.stacks)
                    return atDepth(benchDepth) { scenario.rx(context.iterations) }
                })
        }
        cases.append(
            BenchCase(
                name: "\(scenario.name)-combine", group: scenario.group, variant: "OpenCombine 0.14",
                unit: scenario.unit, iterations: scenario.iterations, quickIterations: 100
            ) { context in
                configure(tracking: false, stacks: .off)
                return atDepth(benchDepth) { scenario.combine(context.iterations) }
            })
    }
    return cases
}
