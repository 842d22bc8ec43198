import LeakGraph
import Synchronization

// Swift concurrency bridges, with RxSwift's names: a sequence's elements as an `AsyncSequence`,
// and an `AsyncSequence` as an observable.

extension ObservableConvertibleType {
    /// The elements as an asynchronous sequence: it ends when the sequence completes, throws its
    /// error, throws `CancellationError` when the subscription is disposed from elsewhere, and
    /// disposes the subscription when the iteration is cancelled.
    ///
    /// ```swift
    /// for try await name in names.values { print(name) }
    /// ```
    public var values: AsyncThrowingStream<Element, Swift.Error> {
        AsyncThrowingStream { continuation in
            let finished = FinishedFlag()
            // Disposing is thread safe for every LeakGraphRx subscription; the stream may be
            // cancelled on any thread.
            let subscription = UncheckedSendable(
                asObservable().subscribe(
                    onNext: { element in
                        // Handed over: the sequence never touches an element after delivering it.
                        nonisolated(unsafe) let handedOver = element
                        continuation.yield(handedOver)
                    },
                    onError: { error in
                        finished.set()
                        continuation.finish(throwing: error)
                    },
                    onCompleted: {
                        finished.set()
                        continuation.finish()
                    },
                    onDisposed: {
                        if !finished.isSet { continuation.finish(throwing: CancellationError()) }
                    }))
            continuation.onTermination = { termination in
                if case .cancelled = termination { subscription.value.dispose() }
            }
        }
    }
}

extension InfallibleType {
    /// The elements as an asynchronous sequence that cannot fail: it ends when the infallible
    /// completes, and disposes the subscription when the iteration is cancelled.
    public var values: AsyncStream<Element> {
        AsyncStream { continuation in
            let subscription = UncheckedSendable(
                asObservable().subscribe(
                    onNext: { element in
                        // Handed over: the sequence never touches an element after delivering it.
                        nonisolated(unsafe) let handedOver = element
                        continuation.yield(handedOver)
                    }, onCompleted: { continuation.finish() }))
            continuation.onTermination = { termination in
                if case .cancelled = termination { subscription.value.dispose() }
            }
        }
    }
}

/// Whether a stream was finished by its source (set on any thread, read on any other).
private final class FinishedFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
    /// Sets the flag; true for the one caller that found it unset.
    func setFirst() -> Bool { !flag.exchange(true, ordering: .acquiringAndReleasing) }
}

extension AsyncSequence {
    /// The sequence as an observable: each subscription iterates it in a task of its own (at
    /// `priority`), and disposing cancels the task. A `CancellationError` completes the
    /// observable; any other error fails it.
    ///
    /// ```swift
    /// let lines = URL(fileURLWithPath: path).lines.asObservable()
    /// ```
    public func asObservable(priority: TaskPriority? = nil) -> Observable<Element> {
        Observable.create { observer in
            // The iterator and the observer go to the task that owns them from then on: neither
            // is touched by the subscribing thread again (observers serialise their own events).
            // The iteration is made a plain closure here so that the task needs nothing of the
            // sequence's type.
            var iterator = makeAsyncIterator()
            let next = UncheckedSendable({ () async throws -> Element? in try await iterator.next() })
            let deliver = UncheckedSendable({ (event: Event<Element>) in observer.on(event) })
            let task = Task.detached(priority: priority) {
                do {
                    while let value = try await next.value() {
                        deliver.value(.next(value))
                    }
                    deliver.value(.completed)
                } catch is CancellationError {
                    deliver.value(.completed)
                } catch {
                    deliver.value(.error(error))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// A single of what `work` returns or throws, run in a task for each subscriber (detached
    /// when `detached`); disposing cancels the task.
    ///
    /// ```swift
    /// let user = Single.create { try await api.user(id: 7) }
    /// ```
    @_disfavoredOverload
    public static func create(
        detached: Bool = false, priority: TaskPriority? = nil, work: @Sendable @escaping () async throws -> Element
    ) -> Single<Element> {
        Single.create { single in
            let deliver = UncheckedSendable(single)
            let operation: @Sendable () async -> Void = {
                do {
                    let value = try await work()
                    deliver.value(.success(value))
                } catch {
                    deliver.value(.failure(error))
                }
            }
            let task =
                detached
                ? Task.detached(priority: priority, operation: operation)
                : Task(priority: priority, operation: operation)
            return Disposables.create { task.cancel() }
        }
    }

    /// Waits for the single: its element, or its error; `CancellationError` when it is disposed
    /// first or the waiting task is cancelled (which disposes the subscription).
    public var value: Element {
        get async throws {
            try await firstOutcome { resume in
                primitiveSequence.subscribe(
                    onSuccess: { resume(.success($0)) }, onFailure: { resume(.failure($0)) },
                    onDisposed: { resume(.failure(CancellationError())) })
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Waits for the maybe: its element, nil when it completes empty, or its error;
    /// `CancellationError` when it is disposed first or the waiting task is cancelled.
    public var value: Element? {
        get async throws {
            try await firstOutcome { resume in
                primitiveSequence.subscribe(
                    onSuccess: { resume(.success($0)) }, onError: { resume(.failure($0)) },
                    onCompleted: { resume(.success(nil)) }, onDisposed: { resume(.failure(CancellationError())) })
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// Waits for the completable to complete, or throws its error; `CancellationError` when it
    /// is disposed first or the waiting task is cancelled.
    public var value: Void {
        get async throws {
            try await firstOutcome { resume in
                primitiveSequence.subscribe(
                    onCompleted: { resume(.success(())) }, onError: { resume(.failure($0)) },
                    onDisposed: { resume(.failure(CancellationError())) })
            }
        }
    }
}

/// Subscribes with `subscribe` and waits for the first outcome it reports; cancelling the waiting
/// task disposes the subscription. Later outcomes (the `onDisposed` after a success) are ignored.
private func firstOutcome<Value>(
    _ subscribe: (@escaping (Result<Value, Swift.Error>) -> Void) -> Disposable
) async throws -> Value {
    let subscription = UncheckedSendable(SingleAssignmentDisposable())
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Swift.Error>) in
            let resumed = FinishedFlag()
            subscription.value.setDisposable(
                subscribe { outcome in
                    guard resumed.setFirst() else { return }
                    // Handed over: the trait never touches its element after delivering it.
                    nonisolated(unsafe) let handedOver = outcome
                    continuation.resume(with: handedOver)
                })
        }
    } onCancel: {
        subscription.value.dispose()
    }
}
