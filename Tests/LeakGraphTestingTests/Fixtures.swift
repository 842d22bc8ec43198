import LeakGraph
import LeakGraphRx

final class Screen: TrackedObject {
    @StrongRef var presenter: Presenter?
}

final class Presenter: TrackedObject {
    @StrongRef var screen: Screen?
    @WeakRef var weakScreen: Screen?
}

/// Leaks a Screen <-> Presenter cycle.
@inline(never)
func plantLeak() {
    let screen = Screen()
    let presenter = Presenter()
    screen.presenter = presenter
    presenter.screen = screen
}

/// The fixed version: the back reference is weak.
@inline(never)
func noLeak() {
    let screen = Screen()
    let presenter = Presenter()
    screen.presenter = presenter
    presenter.weakScreen = screen
}

/// The classic forgotten subscription: a source that never completes, the Disposable ignored.
@inline(never)
func forgetSubscription() {
    _ = Observable<Int>.create { observer in
        observer.onNext(1)
        return Disposables.create()
    }
    .map { $0 + 1 }
    .subscribe(onNext: { _ in })
}

/// The same subscription kept in a bag that is released.
@inline(never)
func disposeSubscription() {
    let bag = DisposeBag()
    Observable<Int>.create { observer in
        observer.onNext(1)
        return Disposables.create()
    }
    .map { $0 + 1 }
    .subscribe(onNext: { _ in })
    .disposed(by: bag)
}

/// A bag that outlives the tests that put subscriptions in it, as an app's session does.
final class LongLivedBag: @unchecked Sendable {  // test fixture: mutated under `lock` only
    private let lock = Locked<[DisposeBag]>([])
    func keep(_ bag: DisposeBag) { lock.withLock { $0.append(bag) } }
    func release() {
        _ = lock.withLock { bags in
            defer { bags = [] }; return bags
        }
    }
}

/// Subscribes into `bag` to a subject that is a local: nothing can ever send it an event.
@inline(never)
func subscribeToDroppedSubject(keepingIn holder: LongLivedBag) {
    let bag = DisposeBag()
    PublishSubject<Int>().map { $0 + 1 }.subscribe(onNext: { _ in }).disposed(by: bag)
    holder.keep(bag)
}
