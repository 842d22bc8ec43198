import LeakGraph

/// An observer that sets something on a target it does not keep: each element is applied on
/// `scheduler` (the main scheduler by default) while the target lives, and is dropped once it
/// is gone. Binding an error stops a debug build and is printed in a release one.
///
/// ```swift
/// let title = Binder(label) { label, text in label.text = text }
/// viewModel.title.bind(to: title).disposed(by: bag)
/// ```
public struct Binder<Value>: ObserverType {
    /// The element type.
    public typealias Element = Value
    private let binding: (Event<Value>) -> Void

    /// Binds elements to `target`, held weakly, by calling `binding` on `scheduler`.
    public init<Target: AnyObject>(
        _ target: Target, scheduler: ImmediateSchedulerType = MainScheduler(),
        binding: @escaping (Target, Value) -> Void
    ) {
        self.binding = { [weak target] event in
            switch event {
            case .next(let element):
                _ = scheduler.schedule(element) { element in
                    if let target { binding(target, element) }
                    return Disposables.create()
                }
            case .error(let error):
                bindingFailed("Binding error: \(error)")
            case .completed:
                break
            }
        }
    }

    /// Applies `event`.
    public func on(_ event: Event<Value>) {
        binding(event)
    }

    /// The binder as an ``AnyObserver``.
    public func asObserver() -> AnyObserver<Value> {
        AnyObserver(eventHandler: on)
    }
}
