import LeakGraph

// Plain Swift classes that know nothing about LeakGraph, leaking and not leaking in the ways
// real code does. Run with whole-process tracking and a dump directory:
//
//     LEAKGRAPH_TRACK=all LEAKGRAPH_DUMP_DIR=/tmp/dump swift run plain-classes-example
//
// (`--track-from-code` starts tracking with `LeakGraph.trackAllObjects()` instead.)
//
// Expected: leaked cycles Parent ⇄ Child, Document —index→ [String: Section] storage → Section
// —document→ Document, ViewModel —capture→ ViewModel (a closure whose only capture is `self`
// uses `self` as its context) and ViewModel —onChange→ closure context —capture→ ViewModel; the cycle
// held by a global is retained; the `[weak self]` view model is gone.

final class Parent {
    var child: Child?
    let name: String
    init(name: String) { self.name = name }
}

final class Child {
    var parent: Parent?
}

final class Document {
    var index: [String: Section] = [:]
}

final class Section {
    let document: Document
    init(document: Document) { self.document = document }
}

final class ViewModel {
    var onChange: (() -> Void)?
    var count = 0

    func bindStrongly() {
        onChange = { self.count += 1 }
    }

    /// A closure that captures more than `self` gets a context object of its own: the cycle
    /// runs through it.
    func bindWithName(_ name: String) {
        onChange = { self.count += name.count }
    }

    func bindWeakly() {
        onChange = { [weak self] in self?.count += 1 }
    }
}

/// Holds a cycle from a global: alive on purpose, so "retained", never "leaked".
nonisolated(unsafe) var keptForever: Parent?  // written once, on the main thread, before any other

func makeLeaks() {
    let parent = Parent(name: "leaked")
    let child = Child()
    parent.child = child
    child.parent = parent

    let document = Document()
    document.index["intro"] = Section(document: document)

    let strong = ViewModel()
    strong.bindStrongly()

    let named = ViewModel()
    named.bindWithName("named")

    let weak = ViewModel()
    weak.bindWeakly()

    let kept = Parent(name: "kept")
    let keptChild = Child()
    kept.child = keptChild
    keptChild.parent = kept
    keptForever = kept
}

if CommandLine.arguments.contains("--track-from-code") {
    // The dump directory comes from LEAKGRAPH_DUMP_DIR, read when LeakGraph starts.
    LeakGraph.trackAllObjects()
}
makeLeaks()
print("plain-classes-example: done")
