import LeakGraph
import Testing

@Suite("Possible leaks: cycles and objects only unread memory may hold")
struct PossibleLeaksTests {
    private let unreadCapture = "a capture of a parameter pack (`repeat each T`), not read"

    @Test("a retained cycle held only by an unexplained reference that reaches unread memory is a possible leak")
    func retainedCycleReachingUnreadMemory() {
        var snapshot = GraphBuilder().object(1, "A", external: 1).object(2, "B").edge(1, 2, "b").edge(2, 1, "a").build()
        snapshot.unreadReferences = [UnreadReferenceInfo(object: 2, place: "action", why: unreadCapture)]
        let report = LeakDetector.analyze(snapshot)
        #expect(report.leakedObjectIDs.isEmpty)
        #expect(report.possibleLeaks.count == 1)
        #expect(report.possibleLeaks.first?.cycle == 0)
        #expect(report.possibleLeaks.first?.unexplained == 1)
        #expect(report.possibleLeaks.first?.unread.map(\.object) == [2])
        let text = LeakTrace.describe(snapshot, report: report)
        #expect(text.contains("Possible leak (2 object(s))"))
        #expect(text.contains("is held only by 1 reference(s) the graph does not show"))
    }

    @Test("without unread memory, or with a known outside holder, a retained cycle is only retained")
    func noUnreadOrKnownHolderIsRetained() {
        let plain = GraphBuilder().object(1, "A", external: 1).object(2, "B").edge(1, 2, "b").edge(2, 1, "a").build()
        #expect(LeakDetector.analyze(plain).possibleLeaks.isEmpty)
        var held = GraphBuilder().object(1, "A").object(2, "B").object(3, "Owner", external: 1)
            .edge(1, 2, "b").edge(2, 1, "a").edge(3, 1, "a").build()
        held.unreadReferences = [UnreadReferenceInfo(object: 2, place: "action", why: unreadCapture)]
        #expect(LeakDetector.analyze(held).possibleLeaks.isEmpty)
    }

    @Test("an object nothing shown holds whose closure's capture could not be read is a possible leak")
    func objectWithUnreadCapture() {
        var snapshot = GraphBuilder().object(1, "ViewModel", external: 1).object(2, "closure context")
            .edge(1, 2, "action").build()
        snapshot.unreadReferences = [UnreadReferenceInfo(object: 2, place: "capture", why: unreadCapture)]
        let report = LeakDetector.analyze(snapshot)
        #expect(report.possibleLeaks.map(\.object) == [1])
        #expect(report.unknownOwners.first { $0.object == 1 }?.reachesUnreadMemory == true)
    }

    @Test("an object whose unread memory is not a capture (a Mutex, a buffer's tail) is marked, not a possible leak")
    func objectWithUnreadNonCapture() {
        var snapshot = GraphBuilder().object(1, "Service", external: 1).build()
        snapshot.unreadReferences = [
            UnreadReferenceInfo(object: 1, place: "fields", why: "state: a noncopyable value (a Mutex, an Atomic, …)")
        ]
        let report = LeakDetector.analyze(snapshot)
        #expect(report.possibleLeaks.isEmpty)
        #expect(report.unknownOwners.first?.reachesUnreadMemory == true)
    }
}
