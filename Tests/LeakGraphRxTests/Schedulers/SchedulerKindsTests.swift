import Dispatch
import Foundation
import LeakGraph
import LeakGraphRx
import Testing

@Suite("schedulers")
struct SchedulerKindsTests {
    @Test("HistoricalScheduler runs work in date order and moves its clock to each")
    func historicalScheduler() {
        let start = Date(timeIntervalSince1970: 1000)
        let scheduler = HistoricalScheduler(initialClock: start)
        let log = Log()
        for seconds in [30, 10, 20] {
            _ = scheduler.scheduleRelative(seconds, dueTime: .seconds(seconds)) { seconds in
                log.append("\(seconds) at \(Int(scheduler.now.timeIntervalSince(start)))")
                return Disposables.create()
            }
        }
        let cancelled = scheduler.scheduleRelative((), dueTime: .seconds(15)) { _ in
            log.append("cancelled ran")
            return Disposables.create()
        }
        cancelled.dispose()
        scheduler.advanceTo(start.addingTimeInterval(25))
        #expect(log.entries == ["10 at 10", "20 at 20"])
        scheduler.start()
        #expect(log.entries == ["10 at 10", "20 at 20", "30 at 30"])
    }

    @Test("a periodic timer on a virtual clock ticks at start + k × period until disposed")
    func virtualPeriodic() {
        let scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 0))
        let log = Log()
        var timer: Disposable?
        timer = scheduler.schedulePeriodic(0, startAfter: .seconds(5), period: .seconds(10)) { count in
            log.append("\(count)@\(Int(scheduler.now.timeIntervalSince1970))")
            if count == 2 { timer?.dispose() }
            return count + 1
        }
        scheduler.start()
        #expect(log.entries == ["0@5", "1@15", "2@25"])
    }

    @Test("a periodic timer disposed by its own action lets go of the action and what it captured")
    func virtualPeriodicReleasesItsAction() {
        let outcome = lifecycle {
            let scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 0))
            var timer: Disposable?
            timer = scheduler.schedulePeriodic(0, startAfter: .seconds(5), period: .seconds(10)) { count in
                if count == 2 { timer?.dispose() }
                return count + 1
            }
            scheduler.start()
        }
        #expect(outcome.nothingAlive, "\(outcome.alive.map(\.type))")
    }

    @Test("ConcurrentDispatchQueueScheduler runs delayed and periodic work on its queue")
    func concurrentDispatch() async {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        let log = Log()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(5)) { _ in
                log.append("delayed")
                continuation.resume()
                return Disposables.create()
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Locked(false)
            var periodic: Disposable?
            periodic = scheduler.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(2)) { count in
                if count == 2, !resumed.withLock({ $0 }) {
                    resumed.withLock { $0 = true }
                    continuation.resume()
                }
                return count + 1
            }
            _ = periodic
        }
        #expect(log.entries == ["delayed"])
    }

    @Test("OperationQueueScheduler runs the action as an operation; disposing first cancels it")
    func operationQueue() async {
        let queue = OperationQueue()
        queue.isSuspended = true
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let log = Log()
        let cancelled = scheduler.schedule(()) { _ in
            log.append("cancelled ran")
            return Disposables.create()
        }
        cancelled.dispose()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = scheduler.schedule(()) { _ in
                log.append("ran")
                continuation.resume()
                return Disposables.create()
            }
            queue.isSuspended = false
        }
        #expect(log.entries == ["ran"])
    }

    @Test("work queued on the main queue that nothing drains is reported, once, after the delay")
    func mainQueueWatchdog() async throws {
        let reports = Log()
        let watchdog = MainQueueWatchdog(delay: .milliseconds(20)) { reports.append($0) }
        watchdog.queued()
        try await Task.sleep(for: .milliseconds(200))
        watchdog.queued()
        try await Task.sleep(for: .milliseconds(200))
        #expect(reports.entries.count == 1)
        #expect(reports.entries.first?.contains("nothing drains the main queue") == true)
        let quiet = Log()
        let drained = MainQueueWatchdog(delay: .milliseconds(20)) { quiet.append($0) }
        drained.queued()
        drained.started()
        try await Task.sleep(for: .milliseconds(200))
        #expect(quiet.entries.isEmpty)
    }
}
