import LeakGraph
import Testing

/// A tracked object for these tests only.
private final class CountedTarget: TrackedObject {}

/// An external (not `TrackedObject`) object for these tests only.
private final class ExternalTarget {}

private final class WeakCountHolder {
    weak var target: AnyObject?
    init(_ target: AnyObject) { self.target = target }
}

private final class UnownedCountHolder {
    unowned let target: CountedTarget
    init(_ target: CountedTarget) { self.target = target }
}

@Suite("Snapshots read the runtime's weak and unowned counts")
struct WeakAndUnownedCountTests {
    private func count(of object: AnyObject, id: UInt64) -> Int? {
        LeakGraph.snapshot(options: .declaredOnly).object(id)?.weakAndUnownedReferenceCount
    }

    @Test("none, then one unowned (inline count), then weak ones too (side table)")
    func countsEachKind() throws {
        let target = CountedTarget()
        let id = try #require(LeakGraph.liveObjects(of: CountedTarget.self).first?.id)
        #expect(count(of: target, id: id) == 0)
        let unowned = UnownedCountHolder(target)
        #expect(count(of: target, id: id) == 1)
        let weak = [WeakCountHolder(target), WeakCountHolder(target)]
        #expect(count(of: target, id: id) == 3)
        withExtendedLifetime((unowned, weak)) {}
    }

    @Test("an external object's own registry entry is not counted")
    func externalEntryNotCounted() throws {
        let target = ExternalTarget()
        LeakGraph.track(target)
        let id = try #require(LeakGraph.liveObjects(of: ExternalTarget.self).first?.id)
        #expect(count(of: target, id: id) == 0)
        let weak = WeakCountHolder(target)
        #expect(count(of: target, id: id) == 1)
        withExtendedLifetime(weak) {}
    }
}
