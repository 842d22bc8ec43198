import Dispatch
import LeakGraph

/// An action waiting on a Dispatch queue or timer, with its state.
///
/// Tracked: the graph shows pending work (held by Dispatch, so "retained") and what its action
/// captured, so "alive because a timer still runs" is visible. Only Dispatch holds it; the caller
/// gets its ``ScheduledWorkToken``, so the action and its captures go as soon as Dispatch drops
/// the block (after running, or when a cancelled timer is torn down).
final class ScheduledWork<State>: TrackedObject {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: the stored properties are immutable; the token is Sendable.
    private let state: State
    private let action: (State) -> Disposable
    let token: ScheduledWorkToken

    init(state: State, action: @escaping (State) -> Disposable, token: ScheduledWorkToken) {
        self.state = state
        self.action = action
        self.token = token
        super.init(state: .active)
    }

    /// Runs the action unless the token was disposed.
    func run() {
        guard !token.isDisposed else { return }
        token.result.settle(action(state))
        reportState(.completed)
    }
}

/// The caller's handle on ``ScheduledWork``: disposing it cancels the work (and its timer) or
/// disposes what the action returned.
final class ScheduledWorkToken: Cancelable {
    // Thread-safe: `result` is behind its lock; `timer` is set once, before the token is
    // shared, and DispatchSource is thread-safe.
    let result = Locked(ScheduledResult())
    var timer: DispatchSourceTimer?

    var isDisposed: Bool { result.isDisposed }

    func dispose() {
        timer?.cancel()
        result.disposeResult()
    }
}

/// The Dispatch side shared by the Dispatch-queue schedulers.
struct DispatchQueueConfiguration: Sendable {
    let queue: DispatchQueue
    let leeway: DispatchTimeInterval

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let token = ScheduledWorkToken()
        let work = UncheckedSendable(ScheduledWork(state: state, action: action, token: token))
        queue.async { work.value.run() }
        return token
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        if case .never = dueTime { return Disposables.create() }
        let token = ScheduledWorkToken()
        let work = UncheckedSendable(ScheduledWork(state: state, action: action, token: token))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        token.timer = timer
        // Held by the timer's handler, which the graph cannot read: named for the reports.
        work.value.setOutsideHolder("a Dispatch timer (once, after \(dueTime.readable), on \(queue.label))")
        timer.schedule(deadline: .now() + dueTime, leeway: leeway)
        // The handler (and with it the work) is released when the timer is cancelled: after
        // the one run, or by the token.
        timer.setEventHandler { [timer] in
            work.value.run()
            timer.cancel()
        }
        timer.resume()
        return token
    }

    func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let periodic = PeriodicWork(state: state, action: action, timer: timer)
        // Held by the timer's handler, which the graph cannot read: named for the reports.
        periodic.setOutsideHolder("a Dispatch timer (every \(period.readable), on \(queue.label))")
        let held = UncheckedSendable(periodic)
        timer.schedule(deadline: .now() + startAfter, repeating: period, leeway: leeway)
        timer.setEventHandler { held.value.tick() }
        timer.resume()
        return periodic
    }
}

/// A Dispatch timer's action and running state. Tracked and `active` until disposed: a timer
/// nobody disposes keeps what its action captured alive forever, and the graph says so.
final class PeriodicWork<State>: TrackedObject, Cancelable {
    /// Counts the object in `Resources.total`.
    private let rxResource = RxResource()
    // Thread-safe: `value` is only touched by the timer's handler, which Dispatch runs
    // one at a time; the timer is thread-safe.
    private var value: State
    private let action: (State) -> State
    private let timer: DispatchSourceTimer

    init(state: State, action: @escaping (State) -> State, timer: DispatchSourceTimer) {
        value = state
        self.action = action
        self.timer = timer
        super.init(label: "periodic timer", state: .active)
    }

    var isDisposed: Bool { timer.isCancelled }

    func tick() {
        value = action(value)
    }

    func dispose() {
        // Cancelling releases the handler, which is what holds this object.
        timer.cancel()
        setOutsideHolder(nil)
        reportState(.disposed)
    }
}
