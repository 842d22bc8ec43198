import Foundation
import LeakGraph
import Synchronization

/// Process-wide hooks, as RxSwift has them.
///
/// ```swift
/// Hooks.recordCallStackOnError = true
/// Hooks.defaultErrorHandler = { callStack, error in
///     Issue.record("unhandled \(error), subscribed at:\n\(callStack.joined(separator: "\n"))")
/// }
/// ```
public enum Hooks {
    /// The type of ``defaultErrorHandler``: where the subscription was made (empty unless
    /// ``recordCallStackOnError``), and the error.
    public typealias DefaultErrorHandler = (_ subscriptionCallStack: [String], _ error: Swift.Error) -> Void
    /// The type of ``customCaptureSubscriptionCallstack``.
    public typealias CustomCaptureSubscriptionCallstack = () -> [String]

    // Unchecked: the closures are called on whichever thread subscribes or delivers an
    // unhandled error, as in RxSwift, so it is the closures' own business to be thread-safe (the
    // defaults print and read the stack); replacing them goes through the lock.
    private struct Handlers: Sendable {
        var defaultErrorHandler = UncheckedSendable<DefaultErrorHandler> { callStack, error in
            print("Unhandled error happened: \(error)")
            if !callStack.isEmpty { print("subscription called from:\n\(callStack.joined(separator: "\n"))") }
        }
        var customCaptureSubscriptionCallstack = UncheckedSendable<CustomCaptureSubscriptionCallstack> {
            Thread.callStackSymbols
        }
    }

    private static let handlers = Locked(Handlers())
    private static let recordsCallStack = Atomic<Bool>(false)

    /// Called for an error no `onError` handler received (default: prints it, and the
    /// subscription's call stack when recorded). Reading and replacing it are safe from any
    /// thread; the handler itself runs on the thread that delivers the error.
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { handlers.withLock { $0.defaultErrorHandler.value } }
        set {
            // The old handler is released after unlocking: its captures may run arbitrary deinits.
            let old = handlers.withLock { handlers in
                defer { handlers.defaultErrorHandler.value = newValue }
                return handlers.defaultErrorHandler
            }
            _ = old
        }
    }

    /// Captures the call stack of a subscription when ``recordCallStackOnError`` is on (default:
    /// `Thread.callStackSymbols`).
    public static var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack {
        get { handlers.withLock { $0.customCaptureSubscriptionCallstack.value } }
        set {
            let old = handlers.withLock { handlers in
                defer { handlers.customCaptureSubscriptionCallstack.value = newValue }
                return handlers.customCaptureSubscriptionCallstack
            }
            _ = old
        }
    }

    /// Whether `subscribe(onNext:…)` without an `onError` records its call stack, for
    /// ``defaultErrorHandler`` (off by default: capturing costs on every such subscription).
    public static var recordCallStackOnError: Bool {
        get { recordsCallStack.load(ordering: .relaxed) }
        set { recordsCallStack.store(newValue, ordering: .relaxed) }
    }
}
