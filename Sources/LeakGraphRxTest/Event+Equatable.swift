import LeakGraphRx

/// Errors compare equal when they print the same, as RxTest compares them.
func sameError(_ lhs: Swift.Error, _ rhs: Swift.Error) -> Bool {
    "\(lhs)" == "\(rhs)"
}

extension Event: Equatable where Element: Equatable {
    /// Same case and equal elements; errors equal when their descriptions are.
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed): true
        case (.error(let left), .error(let right)): sameError(left, right)
        case (.next(let left), .next(let right)): left == right
        default: false
        }
    }
}

/// Single events compare as RxTest compares them (`SingleEvent` is Swift's `Result`, which cannot
/// be made `Equatable` for any error).
func equals<Element: Equatable>(_ lhs: SingleEvent<Element>, _ rhs: SingleEvent<Element>) -> Bool {
    switch (lhs, rhs) {
    case (.failure(let left), .failure(let right)): sameError(left, right)
    case (.success(let left), .success(let right)): left == right
    default: false
    }
}

extension MaybeEvent: Equatable where Element: Equatable {
    /// Same case and equal elements; errors equal when their descriptions are.
    public static func == (lhs: MaybeEvent<Element>, rhs: MaybeEvent<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed): true
        case (.error(let left), .error(let right)): sameError(left, right)
        case (.success(let left), .success(let right)): left == right
        default: false
        }
    }
}

extension CompletableEvent: Equatable {
    /// Same case; errors equal when their descriptions are.
    public static func == (lhs: CompletableEvent, rhs: CompletableEvent) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed): true
        case (.error(let left), .error(let right)): sameError(left, right)
        default: false
        }
    }
}
