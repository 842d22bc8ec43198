import Foundation
import Testing

@testable import LeakGraph

final class DeclarationTestParent: TrackedObject {
    var child: DeclarationTestChild?
}

class DeclarationTestBase: TrackedObject {
    // The property a fix changes, declared in the superclass.
    var owner: DeclarationTestParent?
}

final class DeclarationTestChild: DeclarationTestBase {
    var parent: DeclarationTestParent?
    func parentName() -> String {
        let parent = "local, not the property"
        return parent
    }
}

final class DeclarationTestLoop: TrackedObject {
    // A property really named with an underscore (NIO's `_succeededVoidFuture`), not a wrapper's storage.
    var _partner: DeclarationTestLoop?
}

@Suite("Field declarations", .serialized, .isolated)
struct FieldDeclarationsTests {
    @Test("a cycle's fields are found at their declarations, a superclass's too")
    func declarationsOfACycle() throws {
        let parent = DeclarationTestParent()
        let child = DeclarationTestChild()
        parent.child = child
        child.parent = parent
        let other = DeclarationTestParent()
        let inheriting = DeclarationTestChild()
        other.child = inheriting
        inheriting.owner = other
        defer {
            child.parent = nil
            inheriting.owner = nil
        }
        let (snapshot, _) = LeakGraph.findLeaksToDescribe()
        let declaration = try #require(snapshot.declaration(of: "parent", in: "DeclarationTestChild"))
        #expect(declaration.file.hasSuffix("Tests/LeakGraphTests/Stacks/FieldDeclarationsTests.swift"))
        #expect(declaration.line == 16)
        #expect(declaration.text == "var parent: DeclarationTestParent?")
        let inherited = try #require(snapshot.declaration(of: "owner", in: "DeclarationTestChild"))
        #expect(inherited.line == 12)
        let back = try #require(snapshot.declaration(of: "child", in: "DeclarationTestParent"))
        #expect(back.line == 7)
    }

    @Test("a property named with a leading underscore is found as written, and made weak as written")
    func underscoredProperty() throws {
        let first = DeclarationTestLoop()
        let second = DeclarationTestLoop()
        first._partner = second
        second._partner = first
        defer { first._partner = nil }
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        let declaration = try #require(snapshot.declaration(of: "partner", in: "DeclarationTestLoop"))
        #expect(declaration.text == "var _partner: DeclarationTestLoop?")
        #expect(declaration.isInDependency == false)
        // What a report says of the loop (retained here: the locals hold it).
        let cycle = try #require(snapshot.myCycles(report).first)
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(
            sentence.contains(
                "FieldDeclarationsTests.swift:\(declaration.line) (`var _partner: DeclarationTestLoop?` → `weak var _partner: DeclarationTestLoop?`)"
            ), "\(sentence)")
    }

    @Test("each loop is read once however many cycles repeat it, in any order, and every loop is read")
    func repeatedLoops() throws {
        var parents: [DeclarationTestParent] = []
        for index in 0..<5 {
            let parent = DeclarationTestParent()
            let child = DeclarationTestChild()
            parent.child = child
            // Three cycles through `parent`, two through the superclass's `owner`.
            if index < 3 { child.parent = parent } else { child.owner = parent }
            parents.append(parent)
        }
        defer {
            for parent in parents {
                parent.child?.parent = nil
                parent.child?.owner = nil
            }
        }
        let (snapshot, report) = LeakGraph.findLeaks()
        let ours = report.cycles.filter { $0.loopDescription.contains("DeclarationTestChild") }
        try #require(ours.count == 5)
        // The loops interleaved and repeated, not grouped as a report lists them.
        let interleaved = ours.sorted { $0.objects[0] % 2 < $1.objects[0] % 2 } + ours.reversed()
        let found = FieldDeclarations.find(for: interleaved, in: snapshot)
        let names = found.map { "\($0.type).\($0.field):\($0.line)" }.sorted()
        #expect(
            names == [
                "DeclarationTestChild.owner:12", "DeclarationTestChild.parent:16", "DeclarationTestParent.child:7",
            ])
    }

    @Test("the fix names the declaration and the change: `var parent` → `weak var parent`")
    func fixPointsAtTheDeclaration() {
        let declaration = FieldDeclaration(
            type: "Child", field: "parent", file: "Sources/App/main.swift", line: 10, text: "var parent: Parent?")
        #expect(
            LeakTrace.declarationPlace(declaration, makingWeak: true)
                == "main.swift:10 (`var parent: Parent?` → `weak var parent: Parent?`)")
        #expect(LeakTrace.declarationPlace(declaration, makingWeak: false) == "main.swift:10 (`var parent: Parent?`)")
        // Only a class-bound type can be weak.
        #expect(LeakTrace.canBeWeak("Parent?") && LeakTrace.canBeWeak("AnyObject?"))
        #expect(!LeakTrace.canBeWeak("Any!") && !LeakTrace.canBeWeak("[Child]") && !LeakTrace.canBeWeak("(Int, Child)"))
        let any = FieldDeclaration(
            type: "Box", field: "value", file: "Box.swift", line: 3, text: "var value: Any? = nil")
        #expect(LeakTrace.declarationPlace(any, makingWeak: true) == "Box.swift:3 (`var value: Any? = nil`)")
        let constant = FieldDeclaration(
            type: "Section", field: "document", file: "main.swift", line: 30, text: "let document: Document")
        #expect(
            LeakTrace.declarationPlace(constant, makingWeak: true)
                == "main.swift:30 (`let document: Document` → `weak var document: Document?`)")
    }

    @Test("declarations are read at the type body's own depth: never a local of a method, a comment or a string")
    func sourceScanning() throws {
        let file = NSTemporaryDirectory() + "/declarations-\(getpid()).swift"
        let source = """
            final class Model {  // line 1
                func run() {
                    var parent = 1
                    parent += 1
                }
                // var parent: Old?
                let label = "var parent"
                private(set) weak var parent: Owner?
            }
            final class Inline { var parent: Owner? }
            final class Generic<Value>
            where Value: Equatable
            {
                private(set) var history: [Value] = []
                deinit {
                    print("bye")
                }
            }
            """
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var cache = SourceCache()
        #expect(cache.declaration(of: "parent", inTypeAt: 1, file: file)?.0 == 8)
        #expect(cache.declaration(of: "label", inTypeAt: 1, file: file)?.0 == 7)
        #expect(cache.declaration(of: "missing", inTypeAt: 1, file: file) == nil)
        #expect(cache.declaration(of: "parent", inTypeAt: 10, file: file)?.0 == 10)
        // A class with its own deinit: its deallocating deinit is placed at the deinit (line 15).
        #expect(cache.declaration(of: "history", inTypeAt: 15, file: file)?.0 == 14)
        #expect(FieldDeclaration.fieldName(ofLabel: "items[0]") == "items")
        #expect(FieldDeclaration.fieldName(ofLabel: "_name") == "name")
        #expect(FieldDeclaration.fieldName(ofLabel: "capture") == nil)
        #expect(FieldDeclaration.fieldName(ofLabel: "$__lazy_storage_$_storage") == "storage")
    }
}
