import LeakGraph

/// Factories for the common disposables.
///
/// ```swift
/// let disposable = Disposables.create { print("disposed") }
/// disposable.dispose()   // disposed
/// disposable.dispose()   // (nothing: dispose is idempotent)
/// ```
public enum Disposables {
    /// A disposable that does nothing (no allocation).
    public static func create() -> Disposable { NopDisposable() }

    /// A disposable that calls `dispose` once, on the first `dispose()`, then drops it.
    ///
    /// - Parameter dispose: The action; it may be called on any thread.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// A disposable that disposes `disposable1` then `disposable2`.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        BinaryDisposable(disposable1, disposable2)
    }

    /// A disposable that disposes all of `disposables`, in order.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable)
        -> Cancelable
    {
        CompositeDisposable(disposable1, disposable2, disposable3)
    }

    /// A disposable that disposes all of `disposables`, in order.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable, _ disposables: Disposable...
    ) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// A disposable that disposes all of `disposables`, in order.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        switch disposables.count {
        case 2: BinaryDisposable(disposables[0], disposables[1])
        default: CompositeDisposable(disposables: disposables)
        }
    }
}

/// A disposable with nothing to release. A value, not a tracked object: it holds nothing.
struct NopDisposable: Disposable {
    func dispose() {}
}
