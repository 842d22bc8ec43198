import LeakGraph

extension EdgeLabel {
    // Creating either label registers LeakGraphCombine's fix advice: the labels are made the
    // first time a tracked subscription declares a reference, before anything can leak, so the
    // advice costs the subscription path nothing.
    static let subscription: EdgeLabel = {
        LeakAdvice.register(CombineLeakAdvice.rules)
        return EdgeLabel("subscription")
    }()
    static let subscriber: EdgeLabel = {
        LeakAdvice.register(CombineLeakAdvice.rules)
        return EdgeLabel("subscriber")
    }()
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
