import LeakGraph

extension ObservableType {
    /// Subscribes handlers for elements, errors, completion and disposal.
    ///
    /// Order on termination: `onError` or `onCompleted`, then `onDisposed`, then the upstream's
    /// dispose actions. Order on `dispose()`: the upstream's dispose actions, then `onDisposed`.
    ///
    /// ```swift
    /// Observable.of(1, 2).subscribe(onNext: { print($0) }, onCompleted: { print("done") })
    /// // 1, 2, done
    /// ```
    ///
    /// - Returns: The subscription. Dropping it without disposing keeps a subscription to a
    ///   source that never terminates alive: a leaked cycle.
    @inlinable
    public func subscribe(
        onNext: ((Element) -> Void)? = nil, onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        LeakGraph.withSharedAllocationSite {
            guard let onDisposed else {
                // No `Disposable?` to pass around: each copy of one goes through its type's
                // value witnesses, nil or not.
                return asObservable().subscribe(
                    AnonymousObserver(onNext: onNext, onError: onError, onCompleted: onCompleted, disposed: nil))
            }
            let disposed = Disposables.create(with: onDisposed)
            let observer = AnonymousObserver(
                onNext: onNext, onError: onError, onCompleted: onCompleted, disposed: disposed)
            return Disposables.create(asObservable().subscribe(observer), disposed)
        }
    }

    /// Subscribes a closure receiving every event.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        asObservable().subscribe(AnyObserver(eventHandler: on))
    }

    /// Subscribes handlers that receive `object` (held weakly: once it is deallocated, the
    /// handlers are no longer called).
    ///
    /// - Parameter object: The object passed to the handlers; not retained.
    public func subscribe<Object: AnyObject>(
        with object: Object, onNext: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil, onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onNext: { [weak object] element in
                guard let object else { return }
                onNext?(object, element)
            },
            onError: { [weak object] error in
                guard let object else { return }
                onError?(object, error)
            },
            onCompleted: { [weak object] in
                guard let object else { return }
                onCompleted?(object)
            },
            onDisposed: { [weak object] in
                guard let object else { return }
                onDisposed?(object)
            })
    }
}
