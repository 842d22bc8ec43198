import Foundation
import LeakGraph
import Synchronization

// Closures made in generic code: their contexts store the generic arguments their captures'
// layouts depend on. Each returns an escaping closure that keeps `value` (or more) alive.

func retaining<T>(_ value: T) -> () -> Void {
    { _ = value }
}

func retainingBoth<T, U>(_ first: T, _ second: U) -> () -> Void {
    { _ = (first, second) }
}

func retainingAsync<T>(_ value: T) -> () async -> Void {
    { _ = value }
}

func retainingPack<each T>(_ values: repeat each T) -> () -> Void {
    { _ = (repeat each values) }
}

func retainingOpaque(_ value: some Hashable) -> () -> Void {
    { _ = value }
}

/// A `var` of a generic type captured by a closure made in generic code (Nimble's
/// `memoizedClosure`): its box has a generic signature of its own (`<A> { var A? } <A>`).
func memoized<T>(_ make: @escaping () -> T) -> () -> T {
    var cache: T?
    return {
        if cache == nil { cache = make() }
        return cache!
    }
}

/// A closure in a closure: the outer one is made in generic code and calls the inner one.
func wrapping<T>(_ value: T, _ inner: @escaping () -> Void) -> () -> Void {
    {
        _ = value; inner()
    }
}

/// RxSwift's shape: a protocol extension whose closure captures an optional closure of the
/// protocol's associated type (`onNext: ((Element) -> Void)?`) after a class.
protocol EventSource {
    associatedtype Element
}

struct IntSource: EventSource {
    typealias Element = Int
}

final class Tracker {}

extension EventSource {
    func subscribe(onNext: ((Element) -> Void)?) -> () -> Void {
        let tracker = Tracker()
        return {
            _ = tracker; _ = onNext
        }
    }
}

/// Methods of a generic class: captures of `T` and of `self`, and a method generic of its own
/// (a parameter of depth 1).
final class Factory<T> {
    let value: T
    init(_ value: T) { self.value = value }
    func make() -> () -> Void { { _ = (self.value, self) } }
    func make<U>(with other: U) -> () -> Void { { _ = (self.value, other) } }
}

/// A struct generic over what it holds.
struct Holding<T> {
    var held: T
    var count = 1
}

/// Weak inside generic code: nothing is kept.
struct WeakRef<T: AnyObject> {
    weak var target: T?
}

enum GenericCaptureScenarios {
    static let all: [Scenario] = [
        Scenario(name: "generic-capture-class", expected: .leaked) {
            let node = Node(label: "generic-capture-class")
            node.action = retaining(node)
        },
        Scenario(name: "generic-capture-closure", expected: .leaked) {
            let node = Node(label: "generic-capture-closure")
            node.action = retaining({ _ = node.children } as () -> Void)
        },
        Scenario(name: "generic-capture-existential", expected: .leaked) {
            let node = Node(label: "generic-capture-existential")
            node.action = retaining(node as Any)
        },
        Scenario(name: "generic-capture-optional", expected: .leaked) {
            let node = Node(label: "generic-capture-optional")
            node.action = retaining(Optional(node))
        },
        Scenario(name: "generic-capture-tuple", expected: .leaked) {
            let node = Node(label: "generic-capture-tuple")
            node.action = retaining((7, node))
        },
        Scenario(name: "generic-capture-struct-holding-class", expected: .leaked) {
            let node = Node(label: "generic-capture-struct-holding-class")
            node.action = retaining(Holding(held: node))
        },
        Scenario(name: "generic-capture-two-parameters", expected: .leaked) {
            let node = Node(label: "generic-capture-two-parameters")
            node.action = retainingBoth("text", node)
        },
        Scenario(name: "generic-capture-var-in-generic-box", expected: .leaked) {
            let node = Node(label: "generic-capture-var-in-generic-box")
            let memo = memoized { node }
            _ = memo()  // the box now holds the node as well as the closure that made it
            node.action = { _ = memo() }
        },
        Scenario(name: "generic-capture-closure-in-closure", expected: .leaked) {
            let node = Node(label: "generic-capture-closure-in-closure")
            node.action = wrapping(1, retaining(node))
        },
        Scenario(name: "generic-capture-associated-type", expected: .leaked) {
            let node = Node(label: "generic-capture-associated-type")
            node.action = IntSource().subscribe(onNext: { _ in _ = node.children })
        },
        Scenario(name: "generic-capture-generic-class-method", expected: .leaked) {
            let node = Node(label: "generic-capture-generic-class-method")
            node.action = Factory(node).make()
        },
        Scenario(name: "generic-capture-method-generic-parameter", expected: .leaked) {
            let node = Node(label: "generic-capture-method-generic-parameter")
            node.action = Factory(1).make(with: node)
        },
        Scenario(name: "generic-capture-async-closure", expected: .leaked) {
            let node = Node(label: "generic-capture-async-closure")
            node.anything = retainingAsync(node)
        },
        // A parameter pack's metadata is a pack pointer and a shape count the runtime resolves
        // only inside a real generic context: the capture cannot be placed by type. Recorded by
        // whole-process tracking, the context's words past its placed captures are compared with
        // the live objects, and the node's count confirms the one that holds it: leaked. Tracking
        // only the node, the capture is recorded as unread and the node counts as held from
        // outside.
        Scenario(name: "generic-capture-parameter-pack", expected: .leaked, expectedTrackedOnly: .retained) {
            let node = Node(label: "generic-capture-parameter-pack")
            node.action = retainingPack(1, node)
        },
        Scenario(name: "generic-capture-some-parameter", expected: .leaked) {
            let node = Node(label: "generic-capture-some-parameter")
            node.action = retainingOpaque(NodeKey(node: node))
        },
        Scenario(name: "generic-capture-weak", expected: .freed) {
            let node = Node(label: "generic-capture-weak")
            node.action = retaining(WeakRef(target: node))
        },
        Scenario(name: "generic-capture-kept-elsewhere", expected: .retained) {
            let node = Node(label: "generic-capture-kept-elsewhere")
            let action = retaining(node)
            node.action = action
            keptElsewhere.append(action)
        },
        Scenario(name: "closure-capturing-two-vars", expected: .leaked) {
            var node = Node(label: "closure-capturing-two-vars")
            var count = 0
            node.action = {
                count += 1
                node = node.next ?? node
            }
        },
    ]
}

/// Hostile contexts: a non-escaping closure's context lives on the stack, and its metadata is
/// not one the runtime can name.
enum HostileContextScenarios {
    static let all: [Scenario] = [
        Scenario(name: "non-escaping-context-walked", expected: .freed) {
            let node = Node(label: "non-escaping-context-walked")
            let other = Node(label: "non-escaping-context-walked")
            func body(_ action: () -> Void) {
                withoutActuallyEscaping(action) { escapable in
                    node.action = escapable
                    _ = LeakDetector.analyze(LeakGraph.snapshot())
                    node.action = nil
                }
            }
            body {
                _ = other.children; _ = node.next
            }
        },
        // `list-`: a big one, run only as a process of its own (not in the test process, where
        // every later snapshot would walk it again).
        Scenario(name: "list-deep-indirect-enum-labels", expected: .leaked) {
            let node = Node(label: "list-deep-indirect-enum-labels")
            var list = NodeList.end
            for _ in 0..<50_000 { list = .link(nil, list) }
            list = .link(node, list)
            // The reference to the node is at the end of the chain: its label is the whole path.
            var tail = NodeList.link(node, .end)
            for _ in 0..<200_000 { tail = .link(nil, tail) }
            node.list = tail
            _ = list
        },
    ]
}

/// A recursive closure kept in the `var` it captures: box → context → box, each with one holder.
enum RecursiveClosureScenarios {
    static let all: [Scenario] = [
        Scenario(name: "recursive-closure-in-its-own-var", expected: .leaked) {
            let node = Node(label: "recursive-closure-in-its-own-var")
            var step: (() -> Void)?
            step = {
                _ = node.children
                step?()
            }
            node.action = step
        }
    ]
}

/// An `InlineArray` of references, stored inline in its owner.
@available(macOS 26.0, iOS 26.0, *)
final class InlineHolder: TrackedObject {
    var slots: InlineArray<2, Node?> = [nil, nil]
}

/// A `Mutex` (Synchronization) guarding a reference: its contents are not described by field
/// metadata the runtime walks, so they are said unread.
@available(macOS 15.0, iOS 18.0, *)
final class Guarded: TrackedObject {
    let state = Mutex<NodeHandle?>(nil)
}

/// A node handed to a `Mutex`.
// @unchecked Sendable: a scenario runs on one thread; the mutex only stores the reference.
struct NodeHandle: @unchecked Sendable {
    let node: Node
}

/// Layouts beyond plain fields: fixed-size arrays and noncopyable contents.
enum LayoutScenarios {
    static let all: [Scenario] = [
        Scenario(name: "inline-array-cycle", expected: .leaked) {
            guard #available(macOS 26.0, iOS 26.0, *) else { return }
            let node = Node(label: "inline-array-cycle")
            let holder = InlineHolder(label: "inline-array-cycle")
            holder.slots[1] = node
            node.anything = holder
        },
        // The mutex's words are compared with live objects: the node's one reference nothing else
        // explains is the word inside it.
        Scenario(name: "mutex-holding-a-reference", expected: .leaked) {
            guard #available(macOS 15.0, iOS 18.0, *) else { return }
            let node = Node(label: "mutex-holding-a-reference")
            let guarded = Guarded(label: "mutex-holding-a-reference")
            let handle = NodeHandle(node: node)
            guarded.state.withLock { $0 = handle }
            node.anything = guarded
        },
        Scenario(name: "managed-buffer-tail-cycle", expected: .leaked) {
            let node = Node(label: "managed-buffer-tail-cycle")
            let buffer = NodeBuffer.make(capacity: 4)
            buffer.append(node)
            node.anything = buffer
        },
        Scenario(name: "counted-buffer-cycle", expected: .leaked) {
            let node = Node(label: "counted-buffer-cycle")
            let buffer = CountedNodeBuffer.make(capacity: 4)
            buffer.append(node)
            node.anything = buffer
        },
        // A removed element leaves its stale word in the slot; the header's `count` says the slot
        // is empty, so the node (held by a global the graph does not show) is alive, not leaked.
        Scenario(name: "counted-buffer-stale-slot", expected: .retained) {
            let node = Node(label: "counted-buffer-stale-slot")
            let buffer = CountedNodeBuffer.make(capacity: 4)
            buffer.append(node)
            buffer.removeLast()
            node.anything = buffer
            // A cycle of its own, so that the dump lists it; counting the stale word would
            // explain the global's reference and call it leaked.
            node.next = node
            LayoutScenarios.kept.append(node)
        },
        Scenario(name: "array-slice-cycle", expected: .leaked) {
            let node = Node(label: "array-slice-cycle")
            let other = Node(label: "array-slice-cycle")
            let holder = SliceHolder(label: "array-slice-cycle")
            holder.slice = [other, node, other][1...]
            node.anything = holder
        },
        Scenario(name: "unmanaged-retained-cycle", expected: .leaked) {
            let node = Node(label: "unmanaged-retained-cycle")
            let other = Node(label: "unmanaged-retained-cycle")
            node.unmanaged = Unmanaged.passRetained(other)
            other.next = node
        },
        Scenario(name: "nsmutablearray-cycle", expected: .leaked) {
            let node = Node(label: "nsmutablearray-cycle")
            let array = NSMutableArray()
            array.add(node)
            node.anything = array
        },
        Scenario(name: "nsdictionary-cycle", expected: .leaked) {
            let node = Node(label: "nsdictionary-cycle")
            let dictionary = NSMutableDictionary()
            dictionary["node"] = node
            node.anything = dictionary
        },
        Scenario(name: "nsobject-subclass-cycle", expected: .leaked) {
            let node = Node(label: "nsobject-subclass-cycle")
            let delegate = NodeDelegate()
            delegate.node = node
            node.anything = delegate
        },
    ]

    /// Objects a scenario keeps alive on purpose (a global holder the graph does not show).
    // nonisolated(unsafe): a scenario runs on its process's main thread only.
    nonisolated(unsafe) static var kept: [Node] = []
}

/// A `ManagedBuffer` header that counts its elements (which slots hold values is then known).
struct CountedHeader {
    var count: Int
}

/// A user's `ManagedBuffer` of nodes with a counting header.
final class CountedNodeBuffer: ManagedBuffer<CountedHeader, Node> {
    static func make(capacity: Int) -> CountedNodeBuffer {
        unsafeDowncast(
            CountedNodeBuffer.create(minimumCapacity: capacity) { _ in CountedHeader(count: 0) },
            to: CountedNodeBuffer.self)
    }

    func append(_ node: Node) {
        withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.count).initialize(to: node)
            header.pointee.count += 1
        }
    }

    func removeLast() {
        withUnsafeMutablePointers { header, elements in
            header.pointee.count -= 1
            (elements + header.pointee.count).deinitialize(count: 1)
        }
    }

    deinit {
        withUnsafeMutablePointers { header, elements in _ = elements.deinitialize(count: header.pointee.count) }
    }
}

/// A user's `ManagedBuffer` of nodes (its header is the count).
final class NodeBuffer: ManagedBuffer<Int, Node> {
    static func make(capacity: Int) -> NodeBuffer {
        // `create` returns the subclass's instance, typed as its base class.
        unsafeDowncast(NodeBuffer.create(minimumCapacity: capacity) { _ in 0 }, to: NodeBuffer.self)
    }

    func append(_ node: Node) {
        withUnsafeMutablePointers { count, elements in
            (elements + count.pointee).initialize(to: node)
            count.pointee += 1
        }
    }

    deinit {
        withUnsafeMutablePointers { count, elements in _ = elements.deinitialize(count: count.pointee) }
    }
}

/// A node holding a slice of an array of nodes.
final class SliceHolder: TrackedObject {
    var slice: ArraySlice<Node> = []
}

/// A user's `NSObject` subclass holding a node.
final class NodeDelegate: NSObject {
    var node: Node?
}

/// A protocol with a primary associated type, for a constrained existential.
protocol Holds<Held> {
    associatedtype Held
    var held: Held { get }
}

struct NodeHolder: Holds {
    let held: Node
}

/// A node holding a constrained existential (`any Holds<Node>`) that holds it back.
final class ConstrainedHolder: TrackedObject {
    var value: (any Holds<Node>)?
}

/// An error that holds a node (`@unchecked Sendable`, as `Error` requires: a scenario runs on its
/// process's main thread only).
struct NodeFailure: Error, @unchecked Sendable {
    let node: Node
}

/// A node holding the last error it met, and the result of its last attempt.
final class FailureHolder: TrackedObject {
    var lastFailure: (any Error)?
    var lastResult: Result<Int, any Error> = .success(0)
}

enum ExistentialScenarios {
    static let all: [Scenario] = [
        // Read as the opaque existential container its shape says it is.
        Scenario(name: "constrained-existential-holding-a-reference", expected: .leaked) {
            let node = Node(label: "constrained-existential-holding-a-reference")
            let holder = ConstrainedHolder(label: "constrained-existential-holding-a-reference")
            holder.value = NodeHolder(held: node)
            node.anything = holder
        },
        // The runtime's error box holds the value's type, then the value.
        Scenario(name: "error-holding-a-reference", expected: .leaked) {
            let node = Node(label: "error-holding-a-reference")
            let holder = FailureHolder(label: "error-holding-a-reference")
            holder.lastFailure = NodeFailure(node: node)
            node.anything = holder
        },
        Scenario(name: "result-failure-holding-a-reference", expected: .leaked) {
            let node = Node(label: "result-failure-holding-a-reference")
            let holder = FailureHolder(label: "result-failure-holding-a-reference")
            holder.lastResult = .failure(NodeFailure(node: node))
            node.anything = holder
        },
    ]
}
