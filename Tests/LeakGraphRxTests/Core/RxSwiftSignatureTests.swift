import LeakGraph
import LeakGraphRx
import Testing

/// Code written against RxSwift's signatures compiles and behaves the same: initialisers named as
/// factories, static factories reached through the protocols, the element type of collection
/// forms. Each test is mostly a compile check, with the events it gives.
@Suite("RxSwift's signatures")
struct RxSwiftSignatureTests {
    @Test("a subject's and a bag's init name a () -> T factory, as multicast(makeSubject:) takes")
    func initializersAsFactories() {
        let makeSubject: () -> PublishSubject<Int> = PublishSubject<Int>.init
        let makeBag: () -> DisposeBag = DisposeBag.init
        let makeComposite: () -> CompositeDisposable = CompositeDisposable.init
        let makeSerial: () -> SerialDisposable = SerialDisposable.init
        let makeSingle: () -> SingleAssignmentDisposable = SingleAssignmentDisposable.init
        let makeAsync: () -> AsyncSubject<Int> = AsyncSubject<Int>.init
        _ = (makeComposite(), makeSerial(), makeSingle(), makeAsync())

        let recorder = Recorder<Int>()
        let bag = makeBag()
        let shared = Observable.of(1, 2, 3).multicast(makeSubject: PublishSubject<Int>.init)
        shared.subscribe(recorder).disposed(by: bag)
        shared.connect().disposed(by: bag)
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(makeSubject().hasObservers == false)
    }

    @Test("create and deferred are reached through ObservableType, as in RxSwift")
    func observableFactoriesOnTheProtocol() {
        let recorder = Recorder<Int>()
        _ = Observable<Int>.twice(7).subscribe(recorder)
        _ = Observable<Int>.later(8).subscribe(recorder)
        #expect(recorder.events == [.next(7), .next(7), .completed, .next(8), .completed])
    }

    @Test("just, never, empty, deferred, concat and merge are reached through InfallibleType")
    func infallibleFactoriesOnTheProtocol() {
        let recorder = Recorder<Int>()
        _ = Infallible<Int>.pair(1, 2).subscribe(
            onNext: { recorder.on(.next($0)) }, onCompleted: { recorder.on(.completed) })
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test("Infallible.combineLatest of a collection without a selector gives arrays of its element type")
    func infallibleCombineLatestCollection() {
        let sources = [Infallible<Int>.just(1), Infallible<Int>.just(2)]
        let combined: Infallible<[Int]> = Infallible<Int>.combineLatest(sources)
        var arrays: [[Int]] = []
        _ = combined.subscribe(onNext: { arrays.append($0) })
        #expect(arrays == [[1, 2]])
    }
}

extension ObservableType {
    /// Uses `create` through `Self`, as an RxSwift user's extension may.
    fileprivate static func twice(_ element: Element) -> Observable<Element> {
        Self.create { observer in
            observer.onNext(element)
            observer.onNext(element)
            observer.onCompleted()
            return Disposables.create()
        }
    }

    /// Uses `deferred` through `Self`.
    fileprivate static func later(_ element: Element) -> Observable<Element> {
        Self.deferred { .just(element) }
    }
}

extension InfallibleType {
    /// Uses the static factories through `Self`.
    fileprivate static func pair(_ first: Element, _ second: Element) -> Infallible<Element> {
        _ = Self.never()
        return Self.concat(
            Self.just(first), Self.merge([Self.just(second), Self.empty()]), Self.deferred { Self.merge(Self.empty()) })
    }
}
