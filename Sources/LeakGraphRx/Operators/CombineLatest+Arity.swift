import LeakGraph

// Arities 4 to 8 of `combineLatest`, as RxSwift has them (written out by a script from the two- and
// three-source forms, with every closure typed: inferring them took the type checker minutes).

extension ObservableType {
    /// `combineLatest` of 4 sources.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Partial = (A.Element?, B.Element?, C.Element?, D.Element?)
        typealias Complete = (A.Element, B.Element, C.Element, D.Element)
        let complete: (Partial) -> Complete? = { partial in
            guard let a = partial.0, let b = partial.1, let c = partial.2, let d = partial.3 else { return nil }
            return (a, b, c, d)
        }
        let select: (Complete) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3)
        }
        let connect: (CombineLatestSink<Partial, Complete, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (partial: inout Partial, value: A.Element) in partial.0 = value }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (partial: inout Partial, value: B.Element) in partial.1 = value }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (partial: inout Partial, value: C.Element) in partial.2 = value }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (partial: inout Partial, value: D.Element) in partial.3 = value }),
            ]
        }
        let initial: Partial = (nil, nil, nil, nil)
        return CombineLatest<Partial, Complete, Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable()], partial: initial,
            complete: complete, resultSelector: select, connect: connect)
    }

    /// `combineLatest` of 5 sources.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element, E.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Partial = (A.Element?, B.Element?, C.Element?, D.Element?, E.Element?)
        typealias Complete = (A.Element, B.Element, C.Element, D.Element, E.Element)
        let complete: (Partial) -> Complete? = { partial in
            guard let a = partial.0, let b = partial.1, let c = partial.2, let d = partial.3, let e = partial.4 else {
                return nil
            }
            return (a, b, c, d, e)
        }
        let select: (Complete) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4)
        }
        let connect: (CombineLatestSink<Partial, Complete, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (partial: inout Partial, value: A.Element) in partial.0 = value }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (partial: inout Partial, value: B.Element) in partial.1 = value }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (partial: inout Partial, value: C.Element) in partial.2 = value }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (partial: inout Partial, value: D.Element) in partial.3 = value }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (partial: inout Partial, value: E.Element) in partial.4 = value }),
            ]
        }
        let initial: Partial = (nil, nil, nil, nil, nil)
        return CombineLatest<Partial, Complete, Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable()],
            partial: initial, complete: complete, resultSelector: select, connect: connect)
    }

    /// `combineLatest` of 6 sources.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType, F: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Partial = (A.Element?, B.Element?, C.Element?, D.Element?, E.Element?, F.Element?)
        typealias Complete = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)
        let complete: (Partial) -> Complete? = { partial in
            guard let a = partial.0, let b = partial.1, let c = partial.2, let d = partial.3, let e = partial.4,
                let f = partial.5
            else { return nil }
            return (a, b, c, d, e, f)
        }
        let select: (Complete) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5)
        }
        let connect: (CombineLatestSink<Partial, Complete, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (partial: inout Partial, value: A.Element) in partial.0 = value }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (partial: inout Partial, value: B.Element) in partial.1 = value }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (partial: inout Partial, value: C.Element) in partial.2 = value }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (partial: inout Partial, value: D.Element) in partial.3 = value }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (partial: inout Partial, value: E.Element) in partial.4 = value }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (partial: inout Partial, value: F.Element) in partial.5 = value }),
            ]
        }
        let initial: Partial = (nil, nil, nil, nil, nil, nil)
        return CombineLatest<Partial, Complete, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(),
            ], partial: initial, complete: complete, resultSelector: select, connect: connect)
    }

    /// `combineLatest` of 7 sources.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G,
        resultSelector:
            @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Partial = (A.Element?, B.Element?, C.Element?, D.Element?, E.Element?, F.Element?, G.Element?)
        typealias Complete = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)
        let complete: (Partial) -> Complete? = { partial in
            guard let a = partial.0, let b = partial.1, let c = partial.2, let d = partial.3, let e = partial.4,
                let f = partial.5, let g = partial.6
            else { return nil }
            return (a, b, c, d, e, f, g)
        }
        let select: (Complete) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5, values.6)
        }
        let connect: (CombineLatestSink<Partial, Complete, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (partial: inout Partial, value: A.Element) in partial.0 = value }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (partial: inout Partial, value: B.Element) in partial.1 = value }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (partial: inout Partial, value: C.Element) in partial.2 = value }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (partial: inout Partial, value: D.Element) in partial.3 = value }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (partial: inout Partial, value: E.Element) in partial.4 = value }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (partial: inout Partial, value: F.Element) in partial.5 = value }),
                g.asObservable().subscribe(
                    sink.observer(index: 6) { (partial: inout Partial, value: G.Element) in partial.6 = value }),
            ]
        }
        let initial: Partial = (nil, nil, nil, nil, nil, nil, nil)
        return CombineLatest<Partial, Complete, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(), g.asObservable(),
            ], partial: initial, complete: complete, resultSelector: select, connect: connect)
    }

    /// `combineLatest` of 8 sources.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType, H: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H,
        resultSelector:
            @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element) throws ->
            Element
    ) -> Observable<Element> {
        typealias Partial = (
            A.Element?, B.Element?, C.Element?, D.Element?, E.Element?, F.Element?, G.Element?, H.Element?
        )
        typealias Complete = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)
        let complete: (Partial) -> Complete? = { partial in
            guard let a = partial.0, let b = partial.1, let c = partial.2, let d = partial.3, let e = partial.4,
                let f = partial.5, let g = partial.6, let h = partial.7
            else { return nil }
            return (a, b, c, d, e, f, g, h)
        }
        let select: (Complete) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5, values.6, values.7)
        }
        let connect: (CombineLatestSink<Partial, Complete, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (partial: inout Partial, value: A.Element) in partial.0 = value }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (partial: inout Partial, value: B.Element) in partial.1 = value }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (partial: inout Partial, value: C.Element) in partial.2 = value }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (partial: inout Partial, value: D.Element) in partial.3 = value }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (partial: inout Partial, value: E.Element) in partial.4 = value }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (partial: inout Partial, value: F.Element) in partial.5 = value }),
                g.asObservable().subscribe(
                    sink.observer(index: 6) { (partial: inout Partial, value: G.Element) in partial.6 = value }),
                h.asObservable().subscribe(
                    sink.observer(index: 7) { (partial: inout Partial, value: H.Element) in partial.7 = value }),
            ]
        }
        let initial: Partial = (nil, nil, nil, nil, nil, nil, nil, nil)
        return CombineLatest<Partial, Complete, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(), g.asObservable(), h.asObservable(),
            ], partial: initial, complete: complete, resultSelector: select, connect: connect)
    }

}

extension ObservableType where Element == Any {
    /// `combineLatest` of 4 sources as tuples.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element) throws -> (A.Element, B.Element, C.Element, D.Element) = {
                ($0, $1, $2, $3)
            }
        return Observable<(A.Element, B.Element, C.Element, D.Element)>.combineLatest(
            a, b, c, d, resultSelector: select)
    }

    /// `combineLatest` of 5 sources as tuples.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element
            ) = { ($0, $1, $2, $3, $4) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element)>.combineLatest(
            a, b, c, d, e, resultSelector: select)
    }

    /// `combineLatest` of 6 sources as tuples.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType, F: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element
            ) = { ($0, $1, $2, $3, $4, $5) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)>.combineLatest(
            a, b, c, d, e, f, resultSelector: select)
    }

    /// `combineLatest` of 7 sources as tuples.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)>.combineLatest(
            a, b, c, d, e, f, g, resultSelector: select)
    }

    /// `combineLatest` of 8 sources as tuples.
    public static func combineLatest<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType, H: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6, $7) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)>
            .combineLatest(a, b, c, d, e, f, g, h, resultSelector: select)
    }
}
