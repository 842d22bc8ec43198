import LeakGraph

extension ObservableType where Element: RxAbstractInteger {
    /// Emits 0, 1, 2, … every `period` on `scheduler`, until disposed.
    ///
    /// A subscription nobody disposes runs (and keeps its observer alive) forever: the graph
    /// shows the `periodic timer` holding it.
    ///
    /// ```swift
    /// Observable<Int>.interval(.seconds(1), scheduler: MainScheduler.instance).take(3)   // 0, 1, 2
    /// ```
    public static func interval(_ period: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Timer(dueTime: period, period: period, scheduler: scheduler)
    }

    /// Emits 0 after `dueTime`, then, with a `period`, 1, 2, … every `period`; without one it
    /// completes after the 0.
    ///
    /// ```swift
    /// Observable<Int>.timer(.seconds(2), scheduler: scheduler)   // 0 after 2 s, then completes
    /// ```
    public static func timer(_ dueTime: RxTimeInterval, period: RxTimeInterval? = nil, scheduler: SchedulerType)
        -> Observable<Element>
    {
        Timer(dueTime: dueTime, period: period, scheduler: scheduler)
    }
}

private final class TimerSink<Observer: ObserverType>: Sink<Observer> where Observer.Element: RxAbstractInteger {
    func run(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: SchedulerType) -> Disposable {
        guard let period else {
            return scheduler.scheduleRelative(self, dueTime: dueTime) { sink in
                sink.forwardNext(0)
                sink.forwardTerminalAndDispose(.completed)
                return Disposables.create()
            }
        }
        // Ticks are serial on every scheduler (each is scheduled by the previous one, or by one
        // Dispatch timer), so the count needs no lock.
        return scheduler.schedulePeriodic(0 as Observer.Element, startAfter: dueTime, period: period) { count in
            self.forwardNext(count)
            return count &+ 1
        }
    }
}

private final class Timer<Element: RxAbstractInteger>: Producer<Element> {
    private let dueTime: RxTimeInterval
    private let period: RxTimeInterval?
    private let scheduler: SchedulerType

    init(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: SchedulerType) {
        self.dueTime = dueTime
        self.period = period
        self.scheduler = scheduler
        super.init()
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = TimerSink(observer: observer, cancel: cancel)
        return (sink, sink.run(dueTime: dueTime, period: period, scheduler: scheduler))
    }
}
