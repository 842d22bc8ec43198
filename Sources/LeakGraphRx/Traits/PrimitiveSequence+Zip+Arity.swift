import LeakGraph

// Arities of `zip` for `Single` and `Maybe`, as RxSwift has them (written out by a script, every
// closure typed for the type checker).

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// `zip` of 2 singles: fails with the first error.
    public static func zip<E1, E2>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        resultSelector: @escaping (E1, E2) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(source1.asObservable(), source2.asObservable(), resultSelector: resultSelector)
        )
    }

    /// `zip` of 3 singles: fails with the first error.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, resultSelector: @escaping (E1, E2, E3) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 4 singles: fails with the first error.
    public static func zip<E1, E2, E3, E4>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        resultSelector: @escaping (E1, E2, E3, E4) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                resultSelector: resultSelector))
    }

    /// `zip` of 5 singles: fails with the first error.
    public static func zip<E1, E2, E3, E4, E5>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, resultSelector: @escaping (E1, E2, E3, E4, E5) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 6 singles: fails with the first error.
    public static func zip<E1, E2, E3, E4, E5, E6>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 7 singles: fails with the first error.
    public static func zip<E1, E2, E3, E4, E5, E6, E7>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 8 singles: fails with the first error.
    public static func zip<E1, E2, E3, E4, E5, E6, E7, E8>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>, _ source8: PrimitiveSequence<Trait, E8>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7, E8) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), source8.asObservable(),
                resultSelector: resultSelector))
    }

}

extension PrimitiveSequenceType where Element == Any, Trait == SingleTrait {
    /// `zip` of 2 singles, as tuples.
    public static func zip<E1, E2>(_ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>)
        -> PrimitiveSequence<Trait, (E1, E2)>
    {
        let select: (E1, E2) throws -> (E1, E2) = { ($0, $1) }
        return PrimitiveSequence<Trait, (E1, E2)>.zip(source1, source2, resultSelector: select)
    }

    /// `zip` of 3 singles, as tuples.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3)>
    {
        let select: (E1, E2, E3) throws -> (E1, E2, E3) = { ($0, $1, $2) }
        return PrimitiveSequence<Trait, (E1, E2, E3)>.zip(source1, source2, source3, resultSelector: select)
    }

    /// `zip` of 4 singles, as tuples.
    public static func zip<E1, E2, E3, E4>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4)>
    {
        let select: (E1, E2, E3, E4) throws -> (E1, E2, E3, E4) = { ($0, $1, $2, $3) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4)>.zip(
            source1, source2, source3, source4, resultSelector: select)
    }

    /// `zip` of 5 singles, as tuples.
    public static func zip<E1, E2, E3, E4, E5>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5)>
    {
        let select: (E1, E2, E3, E4, E5) throws -> (E1, E2, E3, E4, E5) = { ($0, $1, $2, $3, $4) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5)>.zip(
            source1, source2, source3, source4, source5, resultSelector: select)
    }

    /// `zip` of 6 singles, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6)>
    {
        let select: (E1, E2, E3, E4, E5, E6) throws -> (E1, E2, E3, E4, E5, E6) = { ($0, $1, $2, $3, $4, $5) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6)>.zip(
            source1, source2, source3, source4, source5, source6, resultSelector: select)
    }

    /// `zip` of 7 singles, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6, E7>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7)>
    {
        let select: (E1, E2, E3, E4, E5, E6, E7) throws -> (E1, E2, E3, E4, E5, E6, E7) = {
            ($0, $1, $2, $3, $4, $5, $6)
        }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7)>.zip(
            source1, source2, source3, source4, source5, source6, source7, resultSelector: select)
    }

    /// `zip` of 8 singles, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6, E7, E8>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>, _ source8: PrimitiveSequence<Trait, E8>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7, E8)>
    {
        let select: (E1, E2, E3, E4, E5, E6, E7, E8) throws -> (E1, E2, E3, E4, E5, E6, E7, E8) = {
            ($0, $1, $2, $3, $4, $5, $6, $7)
        }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7, E8)>.zip(
            source1, source2, source3, source4, source5, source6, source7, source8, resultSelector: select)
    }

}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// `zip` of 2 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        resultSelector: @escaping (E1, E2) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(source1.asObservable(), source2.asObservable(), resultSelector: resultSelector)
        )
    }

    /// `zip` of 3 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, resultSelector: @escaping (E1, E2, E3) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 4 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3, E4>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        resultSelector: @escaping (E1, E2, E3, E4) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                resultSelector: resultSelector))
    }

    /// `zip` of 5 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3, E4, E5>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, resultSelector: @escaping (E1, E2, E3, E4, E5) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 6 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3, E4, E5, E6>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 7 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3, E4, E5, E6, E7>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), resultSelector: resultSelector))
    }

    /// `zip` of 8 maybes: empty as soon as one completes empty.
    public static func zip<E1, E2, E3, E4, E5, E6, E7, E8>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>, _ source8: PrimitiveSequence<Trait, E8>,
        resultSelector: @escaping (E1, E2, E3, E4, E5, E6, E7, E8) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.zip(
                source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
                source5.asObservable(), source6.asObservable(), source7.asObservable(), source8.asObservable(),
                resultSelector: resultSelector))
    }

}

extension PrimitiveSequenceType where Element == Any, Trait == MaybeTrait {
    /// `zip` of 2 maybes, as tuples.
    public static func zip<E1, E2>(_ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>)
        -> PrimitiveSequence<Trait, (E1, E2)>
    {
        let select: (E1, E2) throws -> (E1, E2) = { ($0, $1) }
        return PrimitiveSequence<Trait, (E1, E2)>.zip(source1, source2, resultSelector: select)
    }

    /// `zip` of 3 maybes, as tuples.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3)>
    {
        let select: (E1, E2, E3) throws -> (E1, E2, E3) = { ($0, $1, $2) }
        return PrimitiveSequence<Trait, (E1, E2, E3)>.zip(source1, source2, source3, resultSelector: select)
    }

    /// `zip` of 4 maybes, as tuples.
    public static func zip<E1, E2, E3, E4>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4)>
    {
        let select: (E1, E2, E3, E4) throws -> (E1, E2, E3, E4) = { ($0, $1, $2, $3) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4)>.zip(
            source1, source2, source3, source4, resultSelector: select)
    }

    /// `zip` of 5 maybes, as tuples.
    public static func zip<E1, E2, E3, E4, E5>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5)>
    {
        let select: (E1, E2, E3, E4, E5) throws -> (E1, E2, E3, E4, E5) = { ($0, $1, $2, $3, $4) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5)>.zip(
            source1, source2, source3, source4, source5, resultSelector: select)
    }

    /// `zip` of 6 maybes, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6)>
    {
        let select: (E1, E2, E3, E4, E5, E6) throws -> (E1, E2, E3, E4, E5, E6) = { ($0, $1, $2, $3, $4, $5) }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6)>.zip(
            source1, source2, source3, source4, source5, source6, resultSelector: select)
    }

    /// `zip` of 7 maybes, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6, E7>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7)>
    {
        let select: (E1, E2, E3, E4, E5, E6, E7) throws -> (E1, E2, E3, E4, E5, E6, E7) = {
            ($0, $1, $2, $3, $4, $5, $6)
        }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7)>.zip(
            source1, source2, source3, source4, source5, source6, source7, resultSelector: select)
    }

    /// `zip` of 8 maybes, as tuples.
    public static func zip<E1, E2, E3, E4, E5, E6, E7, E8>(
        _ source1: PrimitiveSequence<Trait, E1>, _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>, _ source4: PrimitiveSequence<Trait, E4>,
        _ source5: PrimitiveSequence<Trait, E5>, _ source6: PrimitiveSequence<Trait, E6>,
        _ source7: PrimitiveSequence<Trait, E7>, _ source8: PrimitiveSequence<Trait, E8>
    )
        -> PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7, E8)>
    {
        let select: (E1, E2, E3, E4, E5, E6, E7, E8) throws -> (E1, E2, E3, E4, E5, E6, E7, E8) = {
            ($0, $1, $2, $3, $4, $5, $6, $7)
        }
        return PrimitiveSequence<Trait, (E1, E2, E3, E4, E5, E6, E7, E8)>.zip(
            source1, source2, source3, source4, source5, source6, source7, source8, resultSelector: select)
    }

}
