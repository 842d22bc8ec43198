import Foundation
import LeakGraph

/// The adversarial corpus of reference discovery (see the `discovery-corpus` program).
///
/// One shape of data and the verdict LeakGraph must give for the objects labelled with its name.
public struct Scenario: Sendable {
    public enum Verdict: String, Sendable {
        case leaked, retained, freed
        /// Alive, leaked or not: where what is seen depends on where the allocator put things (a
        /// cycle seen only partly is a possible leak; seen whole, leaked).
        case alive
    }

    public let name: String
    public let expected: Verdict
    /// The verdict when only tracked objects are recorded (no `LEAKGRAPH_TRACK=all`), where it
    /// differs: a cycle through objects nobody tracks can be seen only partly.
    public let expectedTrackedOnly: Verdict
    public let run: @Sendable () -> Void

    public init(
        name: String, expected: Verdict, expectedTrackedOnly: Verdict? = nil, run: @escaping @Sendable () -> Void
    ) {
        self.name = name
        self.expected = expected
        self.expectedTrackedOnly = expectedTrackedOnly ?? expected
        self.run = run
    }
}

/// A tracked node with every kind of field the corpus needs.
final class Node: TrackedObject {
    var next: Node?
    var children: [Node] = []
    var byName: [String: Node] = [:]
    var byNumber: [Int: Node] = [:]
    var members: Set<Node> = []
    var anything: Any?
    var values: [String: Any] = [:]
    var action: (() -> Void)?
    var list: NodeList = .end
    var choice: Choice = .none
    var pair: (Int, Node?) = (0, nil)
    var nested: Outer?
    var raw: RawHandle?
    var identity: ObjectIdentifier?
    var unmanaged: Unmanaged<Node>?
    var holder: UnownedHolder?
    var deep: [[Node]] = []
    var keyed: [NodeKey: Int] = [:]
}

extension Node: Hashable {
    static func == (lhs: Node, rhs: Node) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A dictionary key that holds a node.
struct NodeKey: Hashable {
    let node: Node
    static func == (lhs: NodeKey, rhs: NodeKey) -> Bool { lhs.node === rhs.node }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(node)) }
}

/// A linked list as an indirect enum.
indirect enum NodeList {
    case end
    case link(Node?, NodeList)
}

/// A multi-payload enum: its tag may live in the payload's spare bits.
enum Choice {
    case none
    case one(Node)
    case two(Node, Int)
    case text(String)
}

/// Value types nested three deep.
struct Outer {
    var inner: Middle
}

struct Middle {
    var value: Inner?
}

struct Inner {
    var node: Node?
}

/// A struct of four words or more, stored out of line in an existential.
struct BigValue {
    var a = 1
    var b = 2
    var c = 3
    var node: Node?
    var d = 4
}

/// A C callback and its unretained context: the idiom to avoid a cycle.
struct RawHandle {
    let callback: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let context: UnsafeMutableRawPointer?
}

/// A struct with an unowned back reference.
struct UnownedHolder {
    unowned let owner: Node
}

/// A generic tracked class: closures in its methods capture `self` as a generic type.
final class GenericBox<Value>: TrackedObject {
    var value: Value?
    var action: (() -> Void)?

    func bindLeaking() { action = { _ = self.value } }
}

/// An actor (untracked) between tracked objects.
actor Worker {
    var onDone: (() -> Void)?
    func setOnDone(_ action: @escaping @Sendable () -> Void) { onDone = action }
}

/// A type whose reflection hooks would call back into LeakGraph (and deadlock, or run user
/// code under a lock) if discovery ever ran them.
struct Reentrant: CustomReflectable, CustomStringConvertible, Hashable {
    let id: Int
    var customMirror: Mirror {
        _ = LeakGraph.snapshot()
        return Mirror(self, children: [])
    }
    var description: String {
        _ = LeakGraph.snapshot()
        return "reentrant"
    }
}

/// References kept outside the scenarios' objects: what makes a cycle retained. Unsafe but
/// fine: a scenario runs once, on the main thread, before the process exits.
nonisolated(unsafe) var keptElsewhere: [Any] = []

private func pair(_ name: String) -> (Node, Node) {
    (Node(label: name), Node(label: name))
}

/// Every scenario of the corpus.
public enum Corpus {
    /// The scenarios, in a stable order.
    public static let all: [Scenario] =
        core + GenericCaptureScenarios.all + HostileContextScenarios.all
        + RecursiveClosureScenarios.all + LayoutScenarios.all + ExistentialScenarios.all + TaskScenarios.all

    private static let core: [Scenario] = [
        // Shared storage: a copy of the storage kept elsewhere is an outside holder.
        Scenario(name: "array-cycle", expected: .leaked) {
            let (parent, child) = pair("array-cycle")
            parent.children = [child]
            child.next = parent
        },
        Scenario(name: "array-copy-kept-elsewhere", expected: .retained) {
            let (parent, child) = pair("array-copy-kept-elsewhere")
            parent.children = [child]
            child.next = parent
            keptElsewhere.append(parent.children)  // an undo history
        },
        Scenario(name: "dictionary-cycle", expected: .leaked) {
            let (parent, child) = pair("dictionary-cycle")
            parent.byName = ["child": child]
            child.byNumber = [1: parent]
        },
        Scenario(name: "dictionary-copy-kept-elsewhere", expected: .retained) {
            let (parent, child) = pair("dictionary-copy-kept-elsewhere")
            parent.byName = ["child": child]
            child.next = parent
            keptElsewhere.append(parent.byName)
        },
        Scenario(name: "set-cycle", expected: .leaked) {
            let (parent, child) = pair("set-cycle")
            parent.members = [child]
            child.members = [parent]
        },
        Scenario(name: "dictionary-key-cycle", expected: .leaked) {
            let (parent, child) = pair("dictionary-key-cycle")
            parent.keyed = [NodeKey(node: child): 1]
            child.next = parent
        },
        Scenario(name: "closure-capturing-self", expected: .leaked) {
            let node = Node(label: "closure-capturing-self")
            node.action = { _ = node.children }
        },
        Scenario(name: "closure-also-queued", expected: .retained) {
            let node = Node(label: "closure-also-queued")
            node.action = { _ = node.children }
            keptElsewhere.append(node.action!)  // the same closure held by a queue
        },
        Scenario(name: "closure-weak-self", expected: .freed) {
            let node = Node(label: "closure-weak-self")
            node.action = { [weak node] in _ = node?.children }
        },
        Scenario(name: "closure-var-box", expected: .leaked) {
            let node = Node(label: "closure-var-box")
            var counter = 0
            node.action = {
                counter += 1
                _ = node.children
            }
        },
        Scenario(name: "closure-shared-var-box", expected: .retained) {
            var captured: Node? = Node(label: "closure-shared-var-box")
            captured!.action = { _ = captured?.children }
            let other: () -> Void = { _ = captured }
            keptElsewhere.append(other)  // a second closure shares the box
        },
        Scenario(name: "captured-object-identifier", expected: .freed) {
            let node = Node(label: "captured-object-identifier")
            let identity = ObjectIdentifier(node)
            node.action = { _ = identity }
        },
        Scenario(name: "captured-unmanaged", expected: .freed) {
            let node = Node(label: "captured-unmanaged")
            let handle = Unmanaged.passUnretained(node)
            node.action = { _ = handle }
        },
        Scenario(name: "captured-struct-with-unowned", expected: .freed) {
            let node = Node(label: "captured-struct-with-unowned")
            let holder = UnownedHolder(owner: node)
            node.action = { _ = holder.owner.children }
        },
        Scenario(name: "stored-object-identifier-and-unmanaged", expected: .freed) {
            let node = Node(label: "stored-object-identifier-and-unmanaged")
            node.identity = ObjectIdentifier(node)
            node.unmanaged = Unmanaged.passUnretained(node)
            node.holder = UnownedHolder(owner: node)
        },
        Scenario(name: "c-callback-with-raw-context", expected: .freed) {
            let node = Node(label: "c-callback-with-raw-context")
            node.raw = RawHandle(callback: { _ in }, context: Unmanaged.passUnretained(node).toOpaque())
        },
        Scenario(name: "big-struct-in-any", expected: .leaked) {
            let node = Node(label: "big-struct-in-any")
            node.anything = BigValue(node: node)
        },
        Scenario(name: "big-struct-in-any-copied", expected: .retained) {
            let node = Node(label: "big-struct-in-any-copied")
            node.anything = BigValue(node: node)
            keptElsewhere.append(node.anything!)  // shares the existential's box
        },
        Scenario(name: "big-struct-in-string-any-dictionary", expected: .leaked) {
            let node = Node(label: "big-struct-in-string-any-dictionary")
            node.values = ["big": BigValue(node: node), "small": 1, "text": "hello"]
        },
        Scenario(name: "small-value-in-any", expected: .leaked) {
            let (parent, child) = pair("small-value-in-any")
            parent.anything = Inner(node: child)
            child.next = parent
        },
        Scenario(name: "indirect-enum-cycle", expected: .leaked) {
            let (parent, child) = pair("indirect-enum-cycle")
            parent.list = .link(child, .link(nil, .end))
            child.next = parent
        },
        Scenario(name: "indirect-enum-box-shared", expected: .retained) {
            let (parent, child) = pair("indirect-enum-box-shared")
            parent.list = .link(child, .end)
            child.next = parent
            keptElsewhere.append(parent.list)
        },
        Scenario(name: "multi-payload-enum", expected: .leaked) {
            let (parent, child) = pair("multi-payload-enum")
            parent.choice = .two(child, 7)
            child.choice = .one(parent)
        },
        Scenario(name: "nested-structs-and-tuples", expected: .leaked) {
            let (parent, child) = pair("nested-structs-and-tuples")
            parent.nested = Outer(inner: Middle(value: Inner(node: child)))
            child.pair = (1, parent)
        },
        Scenario(name: "nested-arrays", expected: .leaked) {
            let (parent, child) = pair("nested-arrays")
            parent.deep = [[], [child]]
            child.deep = [[parent]]
        },
        Scenario(name: "cycle-held-by-a-global", expected: .retained) {
            let (parent, child) = pair("cycle-held-by-a-global")
            parent.next = child
            child.next = parent
            keptElsewhere.append(parent)
        },
        Scenario(name: "hub-with-20000-spokes", expected: .leaked) {
            let hub = Node(label: "hub-with-20000-spokes")
            hub.children = (0..<20_000).map { _ in
                let spoke = Node(label: "hub-with-20000-spokes")
                spoke.next = hub
                return spoke
            }
        },
        Scenario(name: "list-of-100000", expected: .leaked) {
            let head = Node(label: "list-of-100000")
            var list = NodeList.end
            for _ in 0..<100_000 { list = .link(nil, list) }
            head.list = .link(head, list)
        },
        Scenario(name: "reflection-hooks-never-run", expected: .leaked) {
            let node = Node(label: "reflection-hooks-never-run")
            node.anything = Reentrant(id: 1)
            node.values = ["hooked": Reentrant(id: 2)]
            node.next = node
        },
        Scenario(name: "generic-class-capturing-self", expected: .leaked) {
            let box = GenericBox<Int>(label: "generic-class-capturing-self")
            box.value = 1
            box.bindLeaking()
        },
        Scenario(name: "cycle-through-an-untracked-actor", expected: .leaked) {
            let node = Node(label: "cycle-through-an-untracked-actor")
            let worker = Worker()
            node.anything = worker
            nonisolated(unsafe) let captured = node
            let done = DispatchSemaphore(value: 0)
            Task {
                await worker.setOnDone { _ = captured.children }
                done.signal()
            }
            done.wait()
            // The task lets go of the worker and the node only once it has finished, a moment
            // after it signalled.
            Thread.sleep(forTimeInterval: 0.2)
        },
        Scenario(name: "plain-values-only", expected: .freed) {
            let node = Node(label: "plain-values-only")
            node.values = ["a": 1, "b": "two", "c": [3.0]]
            node.anything = "text"
        },
    ]
}
