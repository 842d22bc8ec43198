import Foundation
import LeakGraph

/// The `.rx` namespace: extensions of `Reactive` where `Base` is a type add its reactive API
/// without clashing with the type's own names, and every writable property of a class is a
/// ``Binder`` through `rx`.
///
/// ```swift
/// extension Reactive where Base: Thermostat {
///     var temperature: Observable<Double> { base.readings.asObservable() }
/// }
/// thermostat.rx.temperature.subscribe(onNext: { print($0) })
/// status.bind(to: screen.rx.title)   // `title` is a var of the class `Screen`
/// ```
@dynamicMemberLookup
public struct Reactive<Base> {
    /// The extended value.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// A binder that sets `keyPath` on the base, which it does not keep.
    public subscript<Property>(dynamicMember keyPath: ReferenceWritableKeyPath<Base, Property>) -> Binder<Property>
    where Base: AnyObject {
        Binder(base) { base, value in base[keyPath: keyPath] = value }
    }
}

/// A type with an `rx` namespace (see ``Reactive``).
///
/// ```swift
/// extension Thermostat: ReactiveCompatible {}
/// ```
public protocol ReactiveCompatible {
    /// The type `rx` extends.
    associatedtype ReactiveBase

    /// The namespace of the type's static reactive API.
    static var rx: Reactive<ReactiveBase>.Type { get set }

    /// The namespace of the value's reactive API.
    var rx: Reactive<ReactiveBase> { get set }
}

extension ReactiveCompatible {
    /// The namespace of the type's static reactive API.
    public static var rx: Reactive<Self>.Type {
        get { Reactive<Self>.self }
        set {}  // `mutating` extensions of `Reactive` need a setter
    }

    /// The namespace of the value's reactive API.
    public var rx: Reactive<Self> {
        get { Reactive(self) }
        set {}  // `mutating` extensions of `Reactive` need a setter
    }
}

extension NSObject: ReactiveCompatible {}
