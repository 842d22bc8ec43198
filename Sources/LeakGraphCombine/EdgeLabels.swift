import LeakGraph

extension EdgeLabel {
    static let subscription = EdgeLabel("subscription")
    static let subscriber = EdgeLabel("subscriber")
}

/// Declares `owner —label→ target` when `target` is a class instance (subscriptions and
/// subscribers may be structs, which cannot be part of a reference cycle).
func addReference(from owner: TrackedObject, to target: Any, label: EdgeLabel) {
    guard type(of: target) is AnyClass else { return }
    let object = target as AnyObject
    if let tracked = object as? TrackedObject {
        owner.addTrackedEdge(to: tracked, label: label)
    } else {
        LeakGraph.addEdge(from: owner, to: object, label: label.name)
    }
}

func removeReference(from owner: TrackedObject, to target: Any, label: EdgeLabel) {
    guard type(of: target) is AnyClass else { return }
    let object = target as AnyObject
    if let tracked = object as? TrackedObject {
        owner.removeTrackedEdge(to: tracked, label: label)
    } else {
        LeakGraph.removeEdge(from: owner, to: object, label: label.name)
    }
}
