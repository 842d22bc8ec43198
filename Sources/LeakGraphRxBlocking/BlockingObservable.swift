import Dispatch
import Foundation
import LeakGraphRx

extension ObservableConvertibleType {
    /// A blocking view of the sequence, for tests and command-line code: its operators
    /// subscribe, wait on the calling thread for the result, and dispose.
    ///
    /// With a `timeout` (seconds), a wait that lasts longer throws ``RxError/timeout``.
    ///
    /// ```swift
    /// let values = try Observable.of(1, 2, 3).toBlocking(timeout: 1).toArray()   // [1, 2, 3]
    /// ```
    public func toBlocking(timeout: TimeInterval? = nil) -> BlockingObservable<Element> {
        BlockingObservable(timeout: timeout, source: asObservable())
    }
}

/// A sequence whose results are waited for on the calling thread. Made by `toBlocking()`.
///
/// Events may come from any thread; if they come from the waiting thread itself (a synchronous
/// source) the result is there before the wait starts. On the main thread the wait runs the main
/// run loop, so work the sequence schedules on ``MainScheduler`` still runs (as in RxBlocking).
public struct BlockingObservable<Element> {
    let timeout: TimeInterval?
    let source: Observable<Element>
}

/// Everything a sequence sent until it ended: its elements and how it ended.
public enum MaterializedSequenceResult<T> {
    /// The sequence completed after sending `elements`.
    case completed(elements: [T])
    /// The sequence failed with `error` after sending `elements`.
    case failed(elements: [T], error: Error)
}

extension BlockingObservable {
    /// Every element, once the sequence completes; throws its error, or ``RxError/timeout``.
    public func toArray() throws -> [Element] {
        try elementsOrThrow(materializeResult())
    }

    /// The first element (nil when the sequence completes empty); stops waiting at the first.
    public func first() throws -> Element? {
        try elementsOrThrow(materializeResult(max: 1)).first
    }

    /// The last element (nil when the sequence completes empty).
    public func last() throws -> Element? {
        try elementsOrThrow(materializeResult()).last
    }

    /// The only element; throws ``RxError/noElements`` or ``RxError/moreThanOneElement``.
    public func single() throws -> Element {
        try single { _ in true }
    }

    /// The only element that satisfies `predicate`; throws ``RxError/noElements`` or
    /// ``RxError/moreThanOneElement``.
    public func single(_ predicate: @escaping (Element) throws -> Bool) throws -> Element {
        let elements = try elementsOrThrow(materializeResult(max: 2, predicate: predicate))
        if elements.count > 1 { throw RxError.moreThanOneElement }
        guard let element = elements.first else { throw RxError.noElements }
        return element
    }

    /// Everything the sequence sends until it ends, with how it ended (a timeout is a failure
    /// with ``RxError/timeout``).
    public func materialize() -> MaterializedSequenceResult<Element> {
        materializeResult()
    }

    private func elementsOrThrow(_ result: MaterializedSequenceResult<Element>) throws -> [Element] {
        switch result {
        case .completed(let elements): return elements
        case .failed(_, let error): throw error
        }
    }

    /// Subscribes, collects up to `max` matching elements, and waits for the end (or `max`,
    /// or the timeout), then disposes.
    private func materializeResult(max: Int? = nil, predicate: @escaping (Element) throws -> Bool = { _ in true })
        -> MaterializedSequenceResult<Element>
    {
        let collector = BlockingCollector<Element>(max: max, predicate: predicate)
        let subscription = source.subscribe(collector)
        let finished = collector.wait(timeout: timeout)
        subscription.dispose()
        return collector.result(timedOut: !finished)
    }
}

/// Collects events for a blocking operator and wakes the waiting thread when it is done.
private final class BlockingCollector<Element>: ObserverType {
    // Thread-safe: every mutable field is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private let max: Int?
    private let predicate: (Element) throws -> Bool
    private var elements: [Element] = []
    private var error: Error?
    private var done = false

    init(max: Int?, predicate: @escaping (Element) throws -> Bool) {
        self.max = max
        self.predicate = predicate
    }

    func on(_ event: Event<Element>) {
        condition.lock()
        guard !done else { return condition.unlock() }
        switch event {
        case .next(let element):
            do {
                if try predicate(element) { elements.append(element) }
                if let max, elements.count >= max { done = true }
            } catch {
                self.error = error
                done = true
            }
        case .error(let error):
            self.error = error
            done = true
        case .completed:
            done = true
        }
        if done { condition.broadcast() }
        condition.unlock()
    }

    /// Waits until done; false when the timeout passed first.
    func wait(timeout: TimeInterval?) -> Bool {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        if Thread.isMainThread { return waitRunningMainRunLoop(until: deadline) }
        condition.lock()
        defer { condition.unlock() }
        while !done {
            if let deadline {
                if !condition.wait(until: deadline) && !done { return false }
            } else {
                condition.wait()
            }
        }
        return true
    }

    /// The main thread waits by running its run loop, as RxSwift's does: work the sequence sends
    /// to the main queue (`MainScheduler`, `observe(on: MainScheduler.instance)`) runs meanwhile,
    /// where blocking the thread would wait for it for ever. Checked in slices of 10 ms.
    private func waitRunningMainRunLoop(until deadline: Date?) -> Bool {
        while true {
            condition.lock()
            let finished = done
            condition.unlock()
            if finished { return true }
            let now = Date()
            if let deadline, now >= deadline { return false }
            var slice = now.addingTimeInterval(0.01)
            if let deadline, deadline < slice { slice = deadline }
            _ = RunLoop.current.run(mode: .default, before: slice)
        }
    }

    func result(timedOut: Bool) -> MaterializedSequenceResult<Element> {
        condition.lock()
        defer { condition.unlock() }
        if timedOut { return .failed(elements: elements, error: RxError.timeout) }
        if let error { return .failed(elements: elements, error: error) }
        return .completed(elements: elements)
    }
}
