import LeakGraph
import LeakGraphRx

/// One classic reactive leak and its fix.
struct Scenario: Sendable {
    let title: String
    /// What the leaking version does wrong.
    let mistake: String
    let leaking: @Sendable () -> Void
    let fixed: @Sendable () -> Void
}

/// A view model that binds a stream to itself: the classic `flatMap { self... }` capture.
final class SearchViewModel: TrackedObject {
    var results: Observable<String>?
    var suggestions = ["swift", "rx", "leak"]
    let bag = DisposeBag()

    /// Leaks: the closure captures `self`, and `self` stores the operator that keeps it.
    func bindLeaking(to query: Observable<String>) {
        results = query.flatMap { text in Observable.just("\(text): \(self.suggestions.count) suggestions") }
    }

    /// Fixed: `[weak self]` breaks the cycle.
    func bindFixed(to query: Observable<String>) {
        results = query.flatMap { [weak self] text in
            Observable.just("\(text): \(self?.suggestions.count ?? 0) suggestions")
        }
    }
}

enum Scenarios {
    static let all: [Scenario] = [
        Scenario(
            title: "Forgotten subscription to a source that never completes",
            mistake: "the Disposable returned by subscribe is ignored",
            leaking: {
                _ = Observable<Int>.create { observer in
                    observer.onNext(1)
                    return Disposables.create()
                }
                .map { $0 * 2 }
                .subscribe(onNext: { _ in })
            },
            fixed: {
                let bag = DisposeBag()
                Observable<Int>.create { observer in
                    observer.onNext(1)
                    return Disposables.create()
                }
                .map { $0 * 2 }
                .subscribe(onNext: { _ in })
                .disposed(by: bag)
            }),
        Scenario(
            title: "Subject released without completing",
            mistake: "the subscription to a PublishSubject is never disposed and the subject never completes",
            leaking: {
                let subject = PublishSubject<String>()
                _ = subject.map { $0.uppercased() }.subscribe(onNext: { _ in })
                subject.onNext("hello")
            },
            fixed: {
                let subject = PublishSubject<String>()
                _ = subject.map { $0.uppercased() }.subscribe(onNext: { _ in })
                subject.onNext("hello")
                subject.onCompleted()
            }),
        Scenario(
            title: "Operator closure capturing self",
            mistake: "a view model stores `query.flatMap { … self … }` on itself",
            leaking: {
                let model = SearchViewModel(label: "search screen")
                model.bindLeaking(to: Observable.just("swift"))
            },
            fixed: {
                let model = SearchViewModel(label: "search screen")
                model.bindFixed(to: Observable.just("swift"))
            }),
        Scenario(
            title: "share(replay:scope: .forever) over a never-completing source",
            mistake: "the shared subscription is ignored, so the replay subject holds its source forever",
            leaking: {
                let shared = Observable<Int>.create { observer in
                    observer.onNext(42)
                    return Disposables.create()
                }
                .share(replay: 1, scope: .forever)
                _ = shared.subscribe(onNext: { _ in })
            },
            fixed: {
                let shared = Observable<Int>.create { observer in
                    observer.onNext(42)
                    observer.onCompleted()
                    return Disposables.create()
                }
                .share(replay: 1, scope: .forever)
                _ = shared.subscribe(onNext: { _ in })
            }),
    ]
}

/// A long-lived owner of subscriptions: an app session, a service, a coordinator.
final class AppSession: TrackedObject {
    let bag = DisposeBag()
    /// The fixed version keeps the subject it sends refresh requests to.
    let refresh = PublishSubject<Void>()
}

/// A subscription that no cycle detector calls leaked: a long-lived bag holds it, so it is
/// retained, but nothing can ever send it an event.
struct LifecycleScenario: Sendable {
    let title = "A subscription kept in a long-lived bag, to a subject nothing else holds"
    let mistake =
        "the subject is a local: once the function returns nothing can send to it, yet the session's bag keeps "
        + "the subscription until the session ends"
    let fix =
        "keep the subject where the code that sends to it can reach it (a property of the session), or "
        + "dispose the subscription when its source goes away."

    /// Returns the session, which the program keeps.
    let leaking: @Sendable () -> AppSession = {
        let session = AppSession(label: "session")
        let refresh = PublishSubject<Void>()
        refresh.map { "reload" }.subscribe(onNext: { _ in }).disposed(by: session.bag)
        return session
    }

    /// Returns the session, which the program keeps.
    let fixed: @Sendable () -> AppSession = {
        let session = AppSession(label: "session")
        session.refresh.map { "reload" }.subscribe(onNext: { _ in }).disposed(by: session.bag)
        return session
    }
}
