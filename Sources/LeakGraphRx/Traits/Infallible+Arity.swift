import LeakGraph

// Arities of Infallible's `combineLatest` and `zip`, as RxSwift has them: thin wrappers over the
// observable forms (written out by a script, every closure typed for the type checker).

extension Infallible {
    /// `combineLatest` of 3 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<I1: InfallibleType, I2: InfallibleType, I3: InfallibleType>(
        _ source1: I1, _ source2: I2, _ source3: I3,
        resultSelector: @escaping (I1.Element, I2.Element, I3.Element) throws -> Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), resultSelector: resultSelector))
    }

    /// `combineLatest` of 4 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType>(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4,
        resultSelector: @escaping (I1.Element, I2.Element, I3.Element, I4.Element) throws -> Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                resultSelector: resultSelector))
    }

    /// `combineLatest` of 5 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType
    >(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5,
        resultSelector: @escaping (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element) throws -> Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), resultSelector: resultSelector))
    }

    /// `combineLatest` of 6 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType
    >(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6,
        resultSelector:
            @escaping (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element) throws -> Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), resultSelector: resultSelector))
    }

    /// `combineLatest` of 7 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType, I7: InfallibleType
    >(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6, _ source7: I7,
        resultSelector:
            @escaping (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element) throws ->
            Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), resultSelector: resultSelector))
    }

    /// `combineLatest` of 8 infallibles: `resultSelector` of the latest of each, once all have one.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType, I7: InfallibleType, I8: InfallibleType
    >(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6, _ source7: I7,
        _ source8: I8,
        resultSelector:
            @escaping (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element, I8.Element)
            throws -> Element
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.combineLatest(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), source8.asObservable(),
                resultSelector: resultSelector))
    }

}

extension InfallibleType where Element == Any {
    /// `combineLatest` of 2 infallibles as tuples.
    public static func combineLatest<I1: InfallibleType, I2: InfallibleType>(_ source1: I1, _ source2: I2)
        -> Infallible<(I1.Element, I2.Element)>
    {
        let select: (I1.Element, I2.Element) throws -> (I1.Element, I2.Element) = { ($0, $1) }
        return Infallible<(I1.Element, I2.Element)>.combineLatest(source1, source2, resultSelector: select)
    }

    /// `combineLatest` of 3 infallibles as tuples.
    public static func combineLatest<I1: InfallibleType, I2: InfallibleType, I3: InfallibleType>(
        _ source1: I1, _ source2: I2, _ source3: I3
    )
        -> Infallible<(I1.Element, I2.Element, I3.Element)>
    {
        let select: (I1.Element, I2.Element, I3.Element) throws -> (I1.Element, I2.Element, I3.Element) = {
            ($0, $1, $2)
        }
        return Infallible<(I1.Element, I2.Element, I3.Element)>.combineLatest(
            source1, source2, source3, resultSelector: select)
    }

    /// `combineLatest` of 4 infallibles as tuples.
    public static func combineLatest<I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType>(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4
    )
        -> Infallible<(I1.Element, I2.Element, I3.Element, I4.Element)>
    {
        let select:
            (I1.Element, I2.Element, I3.Element, I4.Element) throws -> (I1.Element, I2.Element, I3.Element, I4.Element) =
                { ($0, $1, $2, $3) }
        return Infallible<(I1.Element, I2.Element, I3.Element, I4.Element)>.combineLatest(
            source1, source2, source3, source4, resultSelector: select)
    }

    /// `combineLatest` of 5 infallibles as tuples.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType
    >(_ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5)
        -> Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element)>
    {
        let select:
            (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element) throws -> (
                I1.Element, I2.Element, I3.Element, I4.Element, I5.Element
            ) = { ($0, $1, $2, $3, $4) }
        return Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element)>.combineLatest(
            source1, source2, source3, source4, source5, resultSelector: select)
    }

    /// `combineLatest` of 6 infallibles as tuples.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType
    >(_ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6)
        -> Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element)>
    {
        let select:
            (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element) throws -> (
                I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element
            ) = { ($0, $1, $2, $3, $4, $5) }
        return Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element)>.combineLatest(
            source1, source2, source3, source4, source5, source6, resultSelector: select)
    }

    /// `combineLatest` of 7 infallibles as tuples.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType, I7: InfallibleType
    >(_ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6, _ source7: I7)
        -> Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element)>
    {
        let select:
            (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element) throws -> (
                I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6) }
        return Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element)>
            .combineLatest(source1, source2, source3, source4, source5, source6, source7, resultSelector: select)
    }

    /// `combineLatest` of 8 infallibles as tuples.
    public static func combineLatest<
        I1: InfallibleType, I2: InfallibleType, I3: InfallibleType, I4: InfallibleType, I5: InfallibleType,
        I6: InfallibleType, I7: InfallibleType, I8: InfallibleType
    >(
        _ source1: I1, _ source2: I2, _ source3: I3, _ source4: I4, _ source5: I5, _ source6: I6, _ source7: I7,
        _ source8: I8
    )
        -> Infallible<(I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element, I8.Element)>
    {
        let select:
            (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element, I8.Element) throws -> (
                I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element, I8.Element
            ) = { ($0, $1, $2, $3, $4, $5, $6, $7) }
        return Infallible<
            (I1.Element, I2.Element, I3.Element, I4.Element, I5.Element, I6.Element, I7.Element, I8.Element)
        >.combineLatest(source1, source2, source3, source4, source5, source6, source7, source8, resultSelector: select)
    }

}

extension InfallibleType {
    /// `zip` of 2 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, resultSelector: @escaping (E1, E2) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(source1.asObservable(), source2.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 3 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>,
        resultSelector: @escaping (E1, E2, E3) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 4 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3, E4>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>, _ source4: Infallible<E4>,
        resultSelector: @escaping (E1, E2, E3, E4) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                resultSelector: resultSelector))
    }

    /// `zip` of 5 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3, E4, E5>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>, _ source4: Infallible<E4>,
        _ source5: Infallible<E5>, resultSelector: @escaping (E1, E2, E3, E4, E5) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 6 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3, E4, E5, E6>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>, _ source4: Infallible<E4>,
        _ source5: Infallible<E5>, _ source6: Infallible<E6>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 7 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3, E4, E5, E6, E7>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>, _ source4: Infallible<E4>,
        _ source5: Infallible<E5>, _ source6: Infallible<E6>, _ source7: Infallible<E7>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 8 infallibles: `resultSelector` of the n-th element of each.
    public static func zip<E1, E2, E3, E4, E5, E6, E7, E8>(
        _ source1: Infallible<E1>, _ source2: Infallible<E2>, _ source3: Infallible<E3>, _ source4: Infallible<E4>,
        _ source5: Infallible<E5>, _ source6: Infallible<E6>, _ source7: Infallible<E7>, _ source8: Infallible<E8>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7, E8) throws -> Element
    ) -> Infallible<Element> {
        Infallible<Element>(
            Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), source8.asObservable(),
                resultSelector: resultSelector))
    }

}
