import LeakGraph
import LeakGraphRx
import OpenCombine

/// One LeakGraphRx operator applied to a subject, and OpenCombine's nearest equivalent.
private struct OperatorShape {
    let name: String
    let rx: (PublishSubject<Int>) -> Observable<Int>
    let combine: ((PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Never>)?
}

/// Issue 15's matrix: every operator it added, with one hot event (subscribed once, per event)
/// and one subscribe → 1 event → dispose lifecycle (per subscription), tracking on and off,
/// beside OpenCombine where it has the operator.
private func operatorShapes() -> [OperatorShape] {
    [
        OperatorShape(
            name: "compactMap", rx: { $0.compactMap { $0 >= 0 ? $0 : nil } },
            combine: { $0.compactMap { $0 >= 0 ? $0 : nil }.eraseToAnyPublisher() }),
        OperatorShape(
            name: "scan", rx: { $0.scan(0, accumulator: &+) }, combine: { $0.scan(0, &+).eraseToAnyPublisher() }),
        OperatorShape(
            name: "distinctUntilChanged", rx: { $0.distinctUntilChanged() },
            combine: { $0.removeDuplicates().eraseToAnyPublisher() }),
        OperatorShape(
            name: "takeWhile", rx: { $0.take(while: { $0 >= 0 }) },
            combine: { $0.prefix(while: { $0 >= 0 }).eraseToAnyPublisher() }),
        OperatorShape(
            name: "skipWhile", rx: { $0.skip(while: { $0 < 0 }) },
            combine: { $0.drop(while: { $0 < 0 }).eraseToAnyPublisher() }),
        OperatorShape(
            name: "do", rx: { $0.do(onNext: { blackHole($0) }) },
            combine: { $0.handleEvents(receiveOutput: { blackHole($0) }).eraseToAnyPublisher() }),
        OperatorShape(
            name: "startWith", rx: { $0.startWith(0) }, combine: { $0.prepend(0).eraseToAnyPublisher() }),
        OperatorShape(
            name: "concatMap", rx: { $0.concatMap { Observable.just($0) } },
            combine: { $0.flatMap(maxPublishers: .max(1)) { Just($0) }.eraseToAnyPublisher() }),
        OperatorShape(name: "enumerated", rx: { $0.enumerated().map(\.element) }, combine: nil),
        OperatorShape(name: "catchAndReturn", rx: { $0.catchAndReturn(0) }, combine: nil),
        OperatorShape(name: "retry", rx: { $0.retry() }, combine: nil),
        OperatorShape(name: "materialize", rx: { $0.materialize().dematerialize() }, combine: nil),
        OperatorShape(name: "withLatestFrom", rx: { $0.withLatestFrom(Observable.just(1)) { $0 &+ $1 } }, combine: nil),
        OperatorShape(name: "flatMapFirst", rx: { $0.flatMapFirst { Observable.just($0) } }, combine: nil),
        OperatorShape(name: "amb", rx: { $0.amb(Observable<Int>.never()) }, combine: nil),
        OperatorShape(name: "skipUntil", rx: { $0.skip(until: Observable.just(0)) }, combine: nil),
        OperatorShape(name: "groupBy", rx: { $0.groupBy { $0 & 1 }.flatMap { $0.asObservable() } }, combine: nil),
        OperatorShape(
            name: "combineLatestCollection",
            rx: { Observable.combineLatest([$0.asObservable(), Observable.just(1)]) { $0[0] &+ $0[1] } }, combine: nil),
        OperatorShape(
            name: "zipCollection",
            rx: { subject in
                Observable.zip([subject.asObservable(), subject.asObservable()]) { $0[0] &+ $0[1] }
            }, combine: nil),
    ]
}

func rxOperatorCases() -> [BenchCase] {
    var cases: [BenchCase] = []
    let variants: [(suffix: String, variant: String, tracking: Bool, stacks: StackCaptureMode?)] = [
        ("on", "LeakGraphRx, tracking on (default stacks)", true, nil),
        ("off", "LeakGraphRx, tracking off", false, .off),
    ]
    for shape in operatorShapes() {
        for variant in variants {
            cases.append(
                BenchCase(
                    name: "op-\(shape.name)-event-rx-\(variant.suffix)", group: "\(shape.name): one hot event",
                    variant: variant.variant, unit: "event", iterations: 200_000, quickIterations: 100
                ) { context in
                    configure(tracking: variant.tracking, stacks: variant.stacks)
                    return rxEvent(shape.rx, context.iterations)
                })
            cases.append(
                BenchCase(
                    name: "op-\(shape.name)-lifecycle-rx-\(variant.suffix)",
                    group: "\(shape.name): subscribe → 1 event → dispose", variant: variant.variant,
                    unit: "subscription", iterations: 50_000, quickIterations: 100
                ) { context in
                    configure(tracking: variant.tracking, stacks: variant.stacks)
                    return atDepth(benchDepth) { rxLifecycle(shape.rx, context.iterations) }
                })
        }
        if let combine = shape.combine {
            cases.append(
                BenchCase(
                    name: "op-\(shape.name)-event-combine", group: "\(shape.name): one hot event",
                    variant: "OpenCombine 0.14", unit: "event", iterations: 200_000, quickIterations: 100
                ) { context in
                    configure(tracking: false, stacks: .off)
                    return combineEvent(combine, context.iterations)
                })
            cases.append(
                BenchCase(
                    name: "op-\(shape.name)-lifecycle-combine", group: "\(shape.name): subscribe → 1 event → dispose",
                    variant: "OpenCombine 0.14", unit: "subscription", iterations: 50_000, quickIterations: 100
                ) { context in
                    configure(tracking: false, stacks: .off)
                    return atDepth(benchDepth) { combineLifecycle(combine, context.iterations) }
                })
        }
    }
    return cases
}

private func rxEvent(_ make: (PublishSubject<Int>) -> Observable<Int>, _ n: Int) -> Sample {
    let counter = Counter()
    let subject = PublishSubject<Int>()
    let subscription = make(subject).subscribe(onNext: { counter.value &+= $0 })
    let sample = measure(n) { for i in 0..<n { subject.onNext(i) } }
    subscription.dispose()
    blackHole(counter.value)
    return sample
}

private func rxLifecycle(_ make: (PublishSubject<Int>) -> Observable<Int>, _ n: Int) -> Sample {
    let counter = Counter()
    return measure(n) {
        for i in 0..<n {
            let subject = PublishSubject<Int>()
            let subscription = make(subject).subscribe(onNext: { counter.value &+= $0 })
            subject.onNext(i)
            subscription.dispose()
        }
    }
}

private func combineEvent(_ make: (PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Never>, _ n: Int) -> Sample {
    let counter = Counter()
    let subject = PassthroughSubject<Int, Never>()
    let subscription = make(subject).sink { counter.value &+= $0 }
    let sample = measure(n) { for i in 0..<n { subject.send(i) } }
    subscription.cancel()
    blackHole(counter.value)
    return sample
}

private func combineLifecycle(_ make: (PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Never>, _ n: Int)
    -> Sample
{
    let counter = Counter()
    return measure(n) {
        for i in 0..<n {
            let subject = PassthroughSubject<Int, Never>()
            let subscription = make(subject).sink { counter.value &+= $0 }
            subject.send(i)
            subscription.cancel()
        }
    }
}
