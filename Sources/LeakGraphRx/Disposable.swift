import LeakGraph

/// A resource that can be released: a subscription, a timer, a connection.
///
/// `dispose()` is idempotent and safe to call from any thread.
public protocol Disposable {
    /// Releases the resource. Calling it again does nothing.
    func dispose()
}

/// A disposable that can tell whether it was disposed.
public protocol Cancelable: Disposable {
    /// Whether ``Disposable/dispose()`` was called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// The disposable as a tracked object, when it is one (used to report edges).
    @inline(__always)
    var trackedObject: TrackedObject? { self as? TrackedObject }
}
