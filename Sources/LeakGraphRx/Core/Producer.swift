import LeakGraph

/// An observable that makes one ``Sink`` per subscription, handed to a ``SinkDisposer``.
///
/// Operators subclass it and implement `run(_:cancel:)`; `subscribe` returns the disposer.
public class Producer<Element>: Observable<Element> {
    /// Creates a producer.
    override init(label: String? = nil) {
        super.init(label: label)
    }

    /// Runs a new sink for `observer` and returns its ``SinkDisposer``.
    ///
    /// Goes through the thread's ``CurrentThreadScheduler`` trampoline as RxSwift does: the
    /// outermost subscription on a thread runs at once, then everything it queued (a synchronous
    /// source's elements, re-entrant subscriptions), before returning.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        // Unretained: the thread keeps its trampoline (no retain/release on every subscription).
        Trampoline.currentUnmanaged._withUnsafeGuaranteedRef { trampoline in
            trampoline.isRunning ? subscribeNow(observer) : trampoline.run { subscribeNow(observer) }
        }
    }

    private func subscribeNow<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        // One captured stack for every object this subscription makes (see
        // LeakGraph.withSharedAllocationSite): the frame that matters is the subscribing line.
        LeakGraph.withSharedAllocationSite {
            let disposer = SinkDisposer()
            let sinkAndSubscription = run(observer, cancel: disposer)
            disposer.setSinkAndSubscription(
                sink: sinkAndSubscription.sink, subscription: sinkAndSubscription.subscription)
            return disposer
        }
    }

    /// Creates the sink for `observer` and subscribes it upstream; subclasses implement it.
    ///
    /// - Returns: The sink and the upstream subscription, both disposed by the disposer.
    func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        fatalError("Producer.run is abstract")
    }
}
