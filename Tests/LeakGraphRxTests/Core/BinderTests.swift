import Foundation
import LeakGraph
import LeakGraphRx
import Testing

/// A class with a property to bind and a reactive extension.
private final class Thermometer: ReactiveCompatible {
    var reading = 0.0
    let readings = PublishSubject<Double>()
}

extension Reactive where Base: Thermometer {
    fileprivate var readings: Observable<Double> { base.readings.asObservable() }
}

/// A connectable type of a user's own.
private struct Gate: ConnectableObservableType {
    typealias Element = Int
    let subject = PublishSubject<Int>()
    let connections = Log()
    func connect() -> Disposable {
        connections.append("connect")
        return Disposables.create { connections.append("disconnect") }
    }
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Int {
        subject.subscribe(observer)
    }
    func asObservable() -> Observable<Int> { subject.asObservable() }
}

@Suite("Binder, Reactive and connectable types of one's own")
struct BinderTests {
    @Test("a binder applies elements on its scheduler while its target lives, and drops them after")
    func binderHoldsItsTargetWeakly() {
        var target: Thermometer? = Thermometer()
        let binder = Binder(target!, scheduler: CurrentThreadScheduler.instance) { $0.reading = $1 }
        binder.onNext(21.5)
        #expect(target?.reading == 21.5)
        weak let gone = target
        target = nil
        #expect(gone == nil)
        binder.onNext(30)  // nothing to set, nothing kept
    }

    @Test("rx gives every writable property as a binder, and the extensions written on Reactive")
    func reactiveNamespace() {
        let thermometer = Thermometer()
        let seen = Log()
        let subscription = thermometer.rx.readings.subscribe(onNext: { seen.append("\($0)") })
        let binding = Observable.just(18.0).bind(
            to: Binder(thermometer, scheduler: CurrentThreadScheduler.instance) { $0.reading = $1 })
        thermometer.readings.onNext(19)
        #expect(thermometer.reading == 18)
        #expect(seen.entries == ["19.0"])
        // The dynamic-member binder binds on the main scheduler: built here, applied by it.
        let property: Binder<Double> = thermometer.rx.reading
        _ = property
        subscription.dispose()
        binding.dispose()
    }

    @Test("refCount on a connectable type of one's own connects with the first subscriber, disconnects after the last")
    func refCountOfOwnConnectable() {
        let gate = Gate()
        let shared = gate.refCount()
        let first = shared.subscribe(onNext: { _ in })
        let second = shared.subscribe(onNext: { _ in })
        first.dispose()
        #expect(gate.connections.entries == ["connect"])
        second.dispose()
        #expect(gate.connections.entries == ["connect", "disconnect"])
        let alias: RxObservable<Int> = shared
        _ = alias
    }
}
