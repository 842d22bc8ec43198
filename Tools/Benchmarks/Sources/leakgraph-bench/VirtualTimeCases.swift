import LeakGraph
import LeakGraphRx
import LeakGraphRxTest

/// Virtual-time runs of LeakGraphRxTest's TestScheduler (issue 14's benchmarks): `n` hot events
/// through `debounce` or `throttle`, and `interval` + `take(n)` on a virtual clock. One operation
/// is one virtual event (scheduling it, running it through the operator, recording the output).
func virtualTimeCases() -> [BenchCase] {
    let scenarios: [(name: String, group: String, run: (Int) -> Sample)] = [
        (
            "testscheduler-debounce", "TestScheduler: hot events → debounce → recorded",
            { n in
                measure(n) {
                    let scheduler = TestScheduler(initialClock: 0)
                    // Bursts of three events 2 ticks apart, then a quiet gap: one output per burst.
                    let events: [Recorded<Event<Int>>] = (0..<n).map { .next(210 + ($0 / 3) * 20 + ($0 % 3) * 2, $0) }
                    let xs = scheduler.createHotObservable(events)
                    let res = scheduler.start(disposed: .max) { xs.debounce(.seconds(5), scheduler: scheduler) }
                    blackHole(res.events.count)
                }
            }
        ),
        (
            "testscheduler-throttle", "TestScheduler: hot events → throttle → recorded",
            { n in
                measure(n) {
                    let scheduler = TestScheduler(initialClock: 0)
                    let events: [Recorded<Event<Int>>] = (0..<n).map { .next(210 + $0 * 2, $0) }
                    let xs = scheduler.createHotObservable(events)
                    let res = scheduler.start(disposed: .max) { xs.throttle(.seconds(5), scheduler: scheduler) }
                    blackHole(res.events.count)
                }
            }
        ),
        (
            "testscheduler-interval-take", "TestScheduler: interval + take(n) on a virtual clock",
            { n in
                measure(n) {
                    let scheduler = TestScheduler(initialClock: 0)
                    let res = scheduler.start(disposed: .max) {
                        Observable<Int>.interval(.seconds(1), scheduler: scheduler).take(n)
                    }
                    blackHole(res.events.count)
                }
            }
        ),
    ]
    var cases: [BenchCase] = []
    for scenario in scenarios {
        for (suffix, variant, tracking) in [
            ("on", "tracking on (default stacks)", true), ("off", "tracking off", false),
        ] {
            cases.append(
                BenchCase(
                    name: "\(scenario.name)-\(suffix)", group: scenario.group, variant: "LeakGraphRxTest, \(variant)",
                    unit: "virtual event", iterations: 10_000, quickIterations: 100
                ) { context in
                    configure(tracking: tracking, stacks: tracking ? nil : .off)
                    return scenario.run(context.iterations)
                })
        }
    }
    return cases
}
