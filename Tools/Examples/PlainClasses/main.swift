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

/// One closure context per allocating line, kept alive: `--many-sites` calls the function below
/// again and again, and each line's contexts must share that line's stack (the lines share every
/// frame but the innermost, and outnumber the entries of a thread's per-line stack cache).
nonisolated(unsafe) var callbacks: [() -> Int] = []  // written on the main thread only

@inline(never) func allocateAtManySites(_ round: Int) {
    callbacks.append { round + 1 }
    callbacks.append { round + 2 }
    callbacks.append { round + 3 }
    callbacks.append { round + 4 }
    callbacks.append { round + 5 }
    callbacks.append { round + 6 }
    callbacks.append { round + 7 }
    callbacks.append { round + 8 }
    callbacks.append { round + 9 }
    callbacks.append { round + 10 }
    callbacks.append { round + 11 }
    callbacks.append { round + 12 }
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
if CommandLine.arguments.contains("--many-sites") {
    for round in 0..<6 { allocateAtManySites(round) }
}
print("plain-classes-example: done")
