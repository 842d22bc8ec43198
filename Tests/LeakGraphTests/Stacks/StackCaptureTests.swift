import LeakGraph
import Testing

@Suite("Stacks", .serialized, .isolated)
struct StackCaptureTests {
    @Test("an allocation stack symbolicates to the allocating function")
    func symbolicatesToCaller() {
        let checkpoint = LeakGraph.checkpoint()
        let leaf = allocateLeafForStackTest()
        let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot())
        let object = snapshot.objects(since: checkpoint).mine.first { $0.type == "Leaf" }
        let stack = snapshot.stack(object?.stack)
        #expect(stack != nil)
        #expect(stack?.frames.contains { $0.contains("allocateLeafForStackTest") } == true, "\(stack?.frames ?? [])")
        #expect(stack?.userFrameDescription?.contains("StackCaptureTests.swift") == true)
        withExtendedLifetime(leaf) {}
    }

    @Test("a TrackedObject subclass with its own init is sited where it is made, not at its init")
    func subclassInitializerChainIsSkipped() {
        let checkpoint = LeakGraph.checkpoint()
        let line = #line; let pet = StackTestPet(name: "Rex")
        let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot())
        let object = snapshot.objects(since: checkpoint).mine.first { $0.type == "StackTestPet" }
        let site = snapshot.stack(object?.stack)?.userFrameDescription
        #expect(site?.hasSuffix("StackCaptureTests.swift:\(line)") == true, "\(site ?? "no site")")
        withExtendedLifetime(pet) {}
    }

    @Test("identical stacks are stored once")
    func deduplicated() {
        var leaves: [Leaf] = []
        for _ in 0..<100 { leaves.append(Leaf()) }
        let stacks = Set(LeakGraph.snapshot(options: .declaredOnly).mine.compactMap(\.stack))
        #expect(stacks.count == 1)
        withExtendedLifetime(leaves) {}
    }

    @Test("objects made again and again at two lines each get their own line's stack, first time or repeated")
    func repeatedCapturesKeepTheirLines() throws {
        // The repeated captures share one remembered walk from their caller; the stack number
        // kept for it must still be per line (and per depth: the third site is one call deeper).
        let checkpoint = LeakGraph.checkpoint()
        var made: [(line: Int, leaf: Leaf)] = []
        for _ in 0..<20 {
            let first = #line; made.append((first, Leaf()))
            let second = #line; made.append((second, Leaf()))
            made.append((0, allocateLeafForStackTest()))
        }
        let snapshot = Symbolicator.symbolicate(LeakGraph.snapshot())
        // Ids follow allocation order: the leaves in id order are `made` in order.
        let leaves = snapshot.objects(since: checkpoint).mine.filter { $0.type == "Leaf" }.sorted { $0.id < $1.id }
        try #require(leaves.count == made.count)
        var stacksByLine: [Int: Set<Int>] = [:]
        for (entry, leaf) in zip(made, leaves) {
            stacksByLine[entry.line, default: []].insert(leaf.stack ?? -1)
        }
        #expect(stacksByLine.count == 3)
        #expect(stacksByLine.values.allSatisfy { $0.count == 1 }, "\(stacksByLine)")
        #expect(Set(stacksByLine.values.compactMap(\.first)).count == 3)
        for (line, stacks) in stacksByLine where line != 0 {
            let site = snapshot.stack(stacks.first)?.userFrameDescription
            #expect(site?.hasSuffix("StackCaptureTests.swift:\(line)") == true, "\(site ?? "no site")")
        }
        withExtendedLifetime(made) {}
    }

    @Test("LEAKGRAPH_STACKS syntax parses every mode and rejects junk")
    func modeParsing() {
        #expect(StackCaptureMode(parsing: "off") == .off)
        #expect(StackCaptureMode(parsing: "all") == .all(depth: 32))
        #expect(StackCaptureMode(parsing: "all:8") == .all(depth: 8))
        #expect(StackCaptureMode(parsing: "sampled:10") == .sampled(every: 10, depth: 32))
        #expect(StackCaptureMode(parsing: "sampled:10:4") == .sampled(every: 10, depth: 4))
        #expect(StackCaptureMode(parsing: "all:0") == nil)
        #expect(StackCaptureMode(parsing: "bogus") == nil)
        #expect(StackCaptureMode(parsing: "off:3") == nil)
    }

    @Test("with stacks off, objects carry no stack")
    func off() {
        let saved = LeakGraph.stackCaptureMode
        LeakGraph.stackCaptureMode = .off
        defer { LeakGraph.stackCaptureMode = saved }
        let checkpoint = LeakGraph.checkpoint()
        let leaf = Leaf()
        #expect(LeakGraph.liveObjects(since: checkpoint).mine.first?.stack == nil)
        withExtendedLifetime(leaf) {}
    }
}

@inline(never)
func allocateLeafForStackTest() -> Leaf {
    Leaf()
}

/// A subclass with initialisers of its own, as the README shows (`super.init()` registers it).
class StackTestAnimal: TrackedObject {
    let name: String
    init(name: String) {
        self.name = name
        super.init()
    }
}

final class StackTestPet: StackTestAnimal {
    override init(name: String) {
        super.init(name: name)
    }
}
