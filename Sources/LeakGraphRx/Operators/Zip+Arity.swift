import LeakGraph

// Arities 4 to 8 of `zip`, as RxSwift has them (written out by a script from the two- and
// three-source forms, with every closure typed: inferring them took the type checker minutes).

extension ObservableType {
    /// `zip` of 4 sources.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Queues = ([A.Element], [B.Element], [C.Element], [D.Element])
        typealias Values = (A.Element, B.Element, C.Element, D.Element)
        let pop: (inout Queues) -> Values? = { queues in
            guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty else { return nil }
            return (queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst(), queues.3.removeFirst())
        }
        let select: (Values) throws -> Element = { values in try resultSelector(values.0, values.1, values.2, values.3)
        }
        let connect: (ZipSink<Queues, Values, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (queues: inout Queues, value: A.Element) in queues.0.append(value) }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (queues: inout Queues, value: B.Element) in queues.1.append(value) }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (queues: inout Queues, value: C.Element) in queues.2.append(value) }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (queues: inout Queues, value: D.Element) in queues.3.append(value) }),
            ]
        }
        let initial: Queues = ([], [], [], [])
        return Zip<Queues, Values, Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable()], queues: initial,
            pop: pop, resultSelector: select,
            connect: connect)
    }

    /// `zip` of 5 sources.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element, E.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Queues = ([A.Element], [B.Element], [C.Element], [D.Element], [E.Element])
        typealias Values = (A.Element, B.Element, C.Element, D.Element, E.Element)
        let pop: (inout Queues) -> Values? = { queues in
            guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty, !queues.4.isEmpty else {
                return nil
            }
            return (
                queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst(), queues.3.removeFirst(),
                queues.4.removeFirst()
            )
        }
        let select: (Values) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4)
        }
        let connect: (ZipSink<Queues, Values, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (queues: inout Queues, value: A.Element) in queues.0.append(value) }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (queues: inout Queues, value: B.Element) in queues.1.append(value) }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (queues: inout Queues, value: C.Element) in queues.2.append(value) }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (queues: inout Queues, value: D.Element) in queues.3.append(value) }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (queues: inout Queues, value: E.Element) in queues.4.append(value) }),
            ]
        }
        let initial: Queues = ([], [], [], [], [])
        return Zip<Queues, Values, Element>(
            sources: [a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable()],
            queues: initial, pop: pop, resultSelector: select,
            connect: connect)
    }

    /// `zip` of 6 sources.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType, F: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F,
        resultSelector: @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Queues = ([A.Element], [B.Element], [C.Element], [D.Element], [E.Element], [F.Element])
        typealias Values = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)
        let pop: (inout Queues) -> Values? = { queues in
            guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty, !queues.4.isEmpty,
                !queues.5.isEmpty
            else { return nil }
            return (
                queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst(), queues.3.removeFirst(),
                queues.4.removeFirst(), queues.5.removeFirst()
            )
        }
        let select: (Values) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5)
        }
        let connect: (ZipSink<Queues, Values, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (queues: inout Queues, value: A.Element) in queues.0.append(value) }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (queues: inout Queues, value: B.Element) in queues.1.append(value) }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (queues: inout Queues, value: C.Element) in queues.2.append(value) }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (queues: inout Queues, value: D.Element) in queues.3.append(value) }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (queues: inout Queues, value: E.Element) in queues.4.append(value) }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (queues: inout Queues, value: F.Element) in queues.5.append(value) }),
            ]
        }
        let initial: Queues = ([], [], [], [], [], [])
        return Zip<Queues, Values, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(),
            ], queues: initial, pop: pop, resultSelector: select,
            connect: connect)
    }

    /// `zip` of 7 sources.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G,
        resultSelector:
            @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element) throws -> Element
    ) -> Observable<Element> {
        typealias Queues = ([A.Element], [B.Element], [C.Element], [D.Element], [E.Element], [F.Element], [G.Element])
        typealias Values = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)
        let pop: (inout Queues) -> Values? = { queues in
            guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty, !queues.4.isEmpty,
                !queues.5.isEmpty, !queues.6.isEmpty
            else { return nil }
            return (
                queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst(), queues.3.removeFirst(),
                queues.4.removeFirst(), queues.5.removeFirst(), queues.6.removeFirst()
            )
        }
        let select: (Values) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5, values.6)
        }
        let connect: (ZipSink<Queues, Values, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (queues: inout Queues, value: A.Element) in queues.0.append(value) }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (queues: inout Queues, value: B.Element) in queues.1.append(value) }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (queues: inout Queues, value: C.Element) in queues.2.append(value) }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (queues: inout Queues, value: D.Element) in queues.3.append(value) }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (queues: inout Queues, value: E.Element) in queues.4.append(value) }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (queues: inout Queues, value: F.Element) in queues.5.append(value) }),
                g.asObservable().subscribe(
                    sink.observer(index: 6) { (queues: inout Queues, value: G.Element) in queues.6.append(value) }),
            ]
        }
        let initial: Queues = ([], [], [], [], [], [], [])
        return Zip<Queues, Values, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(), g.asObservable(),
            ], queues: initial, pop: pop, resultSelector: select,
            connect: connect)
    }

    /// `zip` of 8 sources.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType, H: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H,
        resultSelector:
            @escaping (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element) throws ->
            Element
    ) -> Observable<Element> {
        typealias Queues = (
            [A.Element], [B.Element], [C.Element], [D.Element], [E.Element], [F.Element], [G.Element], [H.Element]
        )
        typealias Values = (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)
        let pop: (inout Queues) -> Values? = { queues in
            guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty, !queues.4.isEmpty,
                !queues.5.isEmpty, !queues.6.isEmpty, !queues.7.isEmpty
            else { return nil }
            return (
                queues.0.removeFirst(), queues.1.removeFirst(), queues.2.removeFirst(), queues.3.removeFirst(),
                queues.4.removeFirst(), queues.5.removeFirst(), queues.6.removeFirst(), queues.7.removeFirst()
            )
        }
        let select: (Values) throws -> Element = { values in
            try resultSelector(values.0, values.1, values.2, values.3, values.4, values.5, values.6, values.7)
        }
        let connect: (ZipSink<Queues, Values, AnyObserver<Element>>) -> [Disposable] = { sink in
            [
                a.asObservable().subscribe(
                    sink.observer(index: 0) { (queues: inout Queues, value: A.Element) in queues.0.append(value) }),
                b.asObservable().subscribe(
                    sink.observer(index: 1) { (queues: inout Queues, value: B.Element) in queues.1.append(value) }),
                c.asObservable().subscribe(
                    sink.observer(index: 2) { (queues: inout Queues, value: C.Element) in queues.2.append(value) }),
                d.asObservable().subscribe(
                    sink.observer(index: 3) { (queues: inout Queues, value: D.Element) in queues.3.append(value) }),
                e.asObservable().subscribe(
                    sink.observer(index: 4) { (queues: inout Queues, value: E.Element) in queues.4.append(value) }),
                f.asObservable().subscribe(
                    sink.observer(index: 5) { (queues: inout Queues, value: F.Element) in queues.5.append(value) }),
                g.asObservable().subscribe(
                    sink.observer(index: 6) { (queues: inout Queues, value: G.Element) in queues.6.append(value) }),
                h.asObservable().subscribe(
                    sink.observer(index: 7) { (queues: inout Queues, value: H.Element) in queues.7.append(value) }),
            ]
        }
        let initial: Queues = ([], [], [], [], [], [], [], [])
        return Zip<Queues, Values, Element>(
            sources: [
                a.asObservable(), b.asObservable(), c.asObservable(), d.asObservable(), e.asObservable(),
                f.asObservable(), g.asObservable(), h.asObservable(),
            ], queues: initial, pop: pop, resultSelector: select,
            connect: connect)
    }

}

extension ObservableType where Element == Any {
    /// `zip` of 4 sources as tuples.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element) throws -> (A.Element, B.Element, C.Element, D.Element) = {
                ($0, $1, $2, $3)
            }
        return Observable<(A.Element, B.Element, C.Element, D.Element)>.zip(a, b, c, d, resultSelector: select)
    }

    /// `zip` of 5 sources as tuples.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element
            ) = { ($0, $1, $2, $3, $4) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element)>.zip(
            a, b, c, d, e, resultSelector: select)
    }

    /// `zip` of 6 sources as tuples.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType, F: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element
            ) = { ($0, $1, $2, $3, $4, $5) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element)>.zip(
            a, b, c, d, e, f, resultSelector: select)
    }

    /// `zip` of 7 sources as tuples.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element)>.zip(
            a, b, c, d, e, f, g, resultSelector: select)
    }

    /// `zip` of 8 sources as tuples.
    public static func zip<
        A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType, E: ObservableType,
        F: ObservableType, G: ObservableType, H: ObservableType
    >(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)> {
        let select:
            (A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element) throws -> (
                A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6, $7) }
        return Observable<(A.Element, B.Element, C.Element, D.Element, E.Element, F.Element, G.Element, H.Element)>.zip(
            a, b, c, d, e, f, g, h, resultSelector: select)
    }
}
