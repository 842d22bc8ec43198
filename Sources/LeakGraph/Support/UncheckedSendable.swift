/// A value handed to another thread under a guarantee the compiler cannot check: the one
/// wrapper every LeakGraph module uses for that, so that the reason is said where the value is
/// wrapped and the types built on it need no `@unchecked Sendable` of their own.
///
/// The guarantees it is used under, each stated at the call site: a lock or a serial queue
/// orders every access; the value is read-only (a loaded image's metadata, a read-only mapping
/// kept until its readers are done); or the value is thread-safe by its own contract though its
/// type does not say so (RxSwift's subjects, schedulers' hops, closures RxSwift runs on
/// whichever thread delivers).
///
/// ```swift
/// // The queue runs one action at a time: the action's state is never shared.
/// let action = UncheckedSendable(action)
/// queue.async { _ = action.value(state) }
/// ```
package struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked Sendable: see the type's documentation; each use says which guarantee holds.
    package var value: Value
    package init(_ value: Value) { self.value = value }
}
