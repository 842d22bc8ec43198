import Dispatch
import Foundation
import LeakGraph
import Synchronization

/// Runs work on the main thread: at once when already on it with nothing pending, otherwise
/// asynchronously on the main queue.
///
/// **"Main" on Linux** is the main Dispatch queue, which runs only while the main thread drains
/// it: `dispatchMain()`, `RunLoop.main.run()`, or an XCTest `wait(for:)`. A command-line program
/// that never does that would never receive the work; rather than stay silent, the scheduler
/// prints a warning to standard error when work it queued has not started after 5 seconds.
///
/// ```swift
/// results.observe(on: MainScheduler.instance).subscribe(onNext: { label.text = $0 })
/// ```
public final class MainScheduler: SerialDispatchQueueScheduler, @unchecked Sendable {
    // @unchecked Sendable: the only state added is atomic.
    private let pending = Atomic<Int>(0)

    /// A scheduler on the main queue.
    public init() {
        super.init(serialQueue: .main)
    }

    /// The shared instance: runs synchronously when called on the main thread with nothing
    /// pending.
    public static let instance = MainScheduler()

    /// A scheduler that always goes through the main queue, even from the main thread.
    public static let asyncInstance = SerialDispatchQueueScheduler(serialQueue: .main)

    /// Stops the program unless it runs on the main thread.
    public static func ensureExecutingOnScheduler(errorMessage: String? = nil) {
        ensureRunningOnMainThread(errorMessage: errorMessage)
    }

    /// Stops the program unless it runs on the main thread.
    public static func ensureRunningOnMainThread(errorMessage: String? = nil) {
        guard Thread.isMainThread else {
            fatalError(
                errorMessage
                    ?? "Executing on background thread. Please use `MainScheduler.instance.schedule` to schedule work on main thread."
            )
        }
    }

    override func scheduleInternal<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable)
        -> Disposable
    {
        let previouslyPending = pending.add(1, ordering: .acquiringAndReleasing).oldValue
        if Thread.isMainThread && previouslyPending == 0 {
            defer { pending.subtract(1, ordering: .acquiringAndReleasing) }
            return action(state)
        }
        MainQueueWatchdog.shared.queued()
        let token = ScheduledWorkToken()
        let work = UncheckedSendable(ScheduledWork(state: state, action: action, token: token))
        let scheduler = UncheckedSendable(self)
        DispatchQueue.main.async {
            MainQueueWatchdog.shared.started()
            work.value.run()
            scheduler.value.pending.subtract(1, ordering: .acquiringAndReleasing)
        }
        return token
    }
}

/// Warns once when work queued on the main queue has not started after a few seconds: nothing
/// drains the main queue (see ``MainScheduler``).
package final class MainQueueWatchdog: Sendable {
    /// The process's watchdog: 5 seconds, a line on standard error.
    static let shared = MainQueueWatchdog(delay: .seconds(5)) { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    private let queuedCount = Atomic<Int>(0)
    private let startedCount = Atomic<Int>(0)
    private let armed = Atomic<Bool>(false)
    private let warned = Atomic<Bool>(false)
    private let delay: DispatchTimeInterval
    private let report: @Sendable (String) -> Void

    /// A watchdog that calls `report` once when queued work has not started after `delay`.
    package init(delay: DispatchTimeInterval, report: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.report = report
    }

    /// Work was queued on the main queue.
    package func queued() {
        queuedCount.add(1, ordering: .relaxed)
        arm()
    }

    /// Queued work started.
    package func started() {
        startedCount.add(1, ordering: .relaxed)
    }

    private func arm() {
        guard !warned.load(ordering: .relaxed),
            armed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let startedAtArming = startedCount.load(ordering: .relaxed)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.armed.store(false, ordering: .releasing)
            let started = self.startedCount.load(ordering: .relaxed)
            guard started == startedAtArming, self.queuedCount.load(ordering: .relaxed) > started else { return }
            guard !self.warned.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self.report(
                "leakgraph-rx: work scheduled on MainScheduler has not run for \(String(format: "%g", self.delay.seconds)) s: "
                    + "nothing drains the main queue. Call dispatchMain() or RunLoop.main.run() in a command-line "
                    + "program, or use another scheduler.")
        }
    }
}

/// Runs work on the main thread, at once when already on it (even with work pending), otherwise
/// asynchronously.
public final class ConcurrentMainScheduler: SchedulerType, Sendable {
    /// Time intervals, as the other dispatch schedulers use.
    public typealias TimeInterval = Foundation.TimeInterval
    /// Absolute time.
    public typealias Time = Date

    private let mainScheduler: MainScheduler

    /// The current time.
    public var now: Date { mainScheduler.now }

    private init(mainScheduler: MainScheduler) {
        self.mainScheduler = mainScheduler
    }

    /// The shared instance.
    public static let instance = ConcurrentMainScheduler(mainScheduler: MainScheduler.instance)

    /// Runs `action` now when on the main thread, otherwise on the main queue.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        if Thread.isMainThread { return action(state) }
        return mainScheduler.schedule(state, action: action)
    }

    /// Runs `action` on the main queue once `dueTime` has passed.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        mainScheduler.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Runs `action` on the main queue after `startAfter`, then every `period`.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        mainScheduler.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
