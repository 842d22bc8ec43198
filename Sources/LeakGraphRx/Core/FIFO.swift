/// A first-in, first-out queue for the events an operator holds back (`observe(on:)`, `delay`).
/// A taken slot is emptied at once — nothing delivered stays referenced by the queue, so nothing
/// is released later under the operator's lock — and the storage is reused once drained.
struct FIFO<Element> {
    private var slots: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == slots.count }

    /// The oldest element, left in place.
    var first: Element? { isEmpty ? nil : slots[head] }

    mutating func append(_ element: Element) {
        slots.append(element)
    }

    /// Takes the oldest element.
    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Empties the queue; returns what it held, for the caller to release after unlocking.
    mutating func removeAll() -> [Element?] {
        defer {
            slots = []
            head = 0
        }
        return slots
    }
}
