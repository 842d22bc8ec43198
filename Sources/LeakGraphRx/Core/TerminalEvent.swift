/// How a sequence ended, without its element type: `.completed` or `.error`.
///
/// Subjects keep their terminal event in this form rather than as an `Event<Element>?`: in
/// unspecialised generic code every `Event<Element>?` stored in a class costs generic metadata
/// lookups when the object is made and destroyed (about 700 instructions per subject), and a
/// terminal event never holds an element.
enum TerminalEvent {
    case completed
    case error(Swift.Error)

    /// `event` when it is terminal, nil for `.next`.
    init?<Element>(_ event: Event<Element>) {
        switch event {
        case .next: return nil
        case .error(let error): self = .error(error)
        case .completed: self = .completed
        }
    }

    /// The event of any element type.
    func event<Element>(of _: Element.Type = Element.self) -> Event<Element> {
        switch self {
        case .completed: .completed
        case .error(let error): .error(error)
        }
    }
}
