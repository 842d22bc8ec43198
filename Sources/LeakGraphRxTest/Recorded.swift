import LeakGraphRx

/// A value recorded at a virtual time: an event an observer received, or one a test observable
/// will send.
///
/// ```swift
/// let expected: [Recorded<Event<Int>>] = [.next(210, 2), .completed(300)]
/// ```
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// When, in ticks.
    public let time: TestTime
    /// What.
    public let value: Value

    /// The value `value` at `time`.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// `value @ time`, as RxTest prints it.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {
    /// Same time and equal values.
    public static func == (lhs: Recorded<Value>, rhs: Recorded<Value>) -> Bool {
        lhs.time == rhs.time && lhs.value == rhs.value
    }
}

extension Recorded {
    /// A `.next(element)` event at `time`.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// A `.completed` event at `time`.
    public static func completed<T>(_ time: TestTime, _: T.Type = T.self) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// An `.error(error)` event at `time`.
    public static func error<T>(_ time: TestTime, _ error: Swift.Error, _: T.Type = T.self) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .error(error))
    }

    /// The events given, as an array (helps type inference).
    ///
    /// ```swift
    /// let expected = Recorded.events(.next(210, 2), .completed(250))
    /// ```
    public static func events<T>(_ recordedEvents: Recorded<Event<T>>...) -> [Recorded<Event<T>>]
    where Value == Event<T> {
        recordedEvents
    }

    /// The events given (helps type inference).
    public static func events<T>(_ recordedEvents: [Recorded<Event<T>>]) -> [Recorded<Event<T>>]
    where Value == Event<T> {
        recordedEvents
    }
}
