import LeakGraph
import LeakGraphTesting
import Testing

private final class CacheEntry: TrackedObject {}

/// A cache that keeps every entry: grows by one per call.
private final class GrowingCache: TrackedObject {
    @StrongRef var newest: CacheEntry?
    var entries: [CacheEntry] = []

    func remember() {
        let entry = CacheEntry()
        entries.append(entry)
        newest = entry
    }
}

/// A cache that keeps the last three entries only.
private final class BoundedCache: TrackedObject {
    var entries: [CacheEntry] = []

    func remember() {
        entries.append(CacheEntry())
        if entries.count > 3 { entries.removeFirst() }
    }
}

private final class Widget: TrackedObject {}
private final class SpecialWidget: TrackedObject {}

@Suite("growth and live-object queries")
struct GrowthCheckTests {
    @Test("a cache that grows by one entry per iteration is reported, with the type, its site and its holder")
    func growingCacheIsReported() {
        let cache = GrowingCache(label: "request cache")
        let report = GrowthCheck.run(iterations: 4) { cache.remember() }
        let entry = report.growing.first { $0.type.hasSuffix("CacheEntry") }
        #expect(entry != nil)
        #expect(entry?.counts == [1, 2, 3, 4, 5])
        #expect(entry?.sites.first?.contains("GrowthCheckTests.swift") == true, "\(report.message)")
        #expect(entry?.newestPath?.contains("GrowingCache") == true)
        #expect(report.message.contains("CacheEntry"), "\(report.message)")
        withExtendedLifetime(cache) {}
    }

    @Test("a bounded cache stays quiet once it is full")
    func boundedCacheIsQuiet() {
        let cache = BoundedCache()
        let report = GrowthCheck.run(iterations: 5, warmUp: 3) { cache.remember() }
        #expect(!report.hasGrowth)
        expectNoGrowth(iterations: 5, warmUp: 3) { cache.remember() }
        withExtendedLifetime(cache) {}
    }

    @Test("a scenario that releases what it makes does not grow")
    func releasingScenario() async {
        await expectNoGrowth {
            await Task.yield()
            _ = GrowingCache()
        }
    }

    @Test("liveCount and liveObjects count the live instances of a type, without a snapshot for the count")
    func liveQueries() {
        #expect(LeakGraph.liveCount(of: Widget.self) == 0)
        let widgets = [Widget(label: "a"), Widget(label: "b")]
        let special = SpecialWidget()
        #expect(LeakGraph.liveCount(of: Widget.self) == 2)
        #expect(LeakGraph.liveObjects(of: Widget.self).compactMap(\.label) == ["a", "b"])
        #expect(LeakGraph.liveCount(of: SpecialWidget.self) == 1)
        expectLive(Widget.self, count: 2)
        withExtendedLifetime((widgets, special)) {}
    }

    @Test("liveCount includes subclasses")
    func subclassesCount() {
        // Types of this test's own: a count over all of TrackedObject would race with the tests
        // that run in parallel and free theirs.
        class Base: TrackedObject {}
        final class Derived: Base {}
        let objects = [Base(), Derived(), Derived()]
        #expect(LeakGraph.liveCount(of: Base.self) == 3)
        #expect(LeakGraph.liveCount(of: Derived.self) == 2)
        withExtendedLifetime(objects) {}
    }
}
