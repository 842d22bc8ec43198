import Foundation
import Testing

@testable import LeakGraph

private final class TimerDrivenTarget: TrackedObject {
    var partner: TimerDrivenPartner?
}

private final class TimerDrivenPartner: TrackedObject {
    var target: TimerDrivenTarget?
}

@Suite("Outside holders named by the code that handed the object over")
struct OutsideHolderTests {
    @Test("a retained cycle whose member a timer holds names the timer where it says the cycle is held from outside")
    func retainedCycleNamesItsOutsideHolder() throws {
        let target = TimerDrivenTarget(label: "held by a timer")
        let partner = TimerDrivenPartner()
        target.partner = partner
        partner.target = target
        // What a Dispatch timer's handler does: a reference the graph cannot read.
        let handler = Unmanaged.passRetained(target)
        target.setOutsideHolder("a Dispatch timer (every 1 s, on tests)")
        defer {
            target.partner = nil
            handler.release()
        }
        let (snapshot, report) = LeakGraph.findLeaksToDescribe()
        let id = try #require(snapshot.objects.first { $0.label == "held by a timer" }?.id)
        // Named first; this test's own local `target` is named after it.
        #expect(snapshot.object(id)?.outsideHolders.first == "a Dispatch timer (every 1 s, on tests)")
        let cycle = try #require(report.cycles.first { $0.objects.contains(id) })
        #expect(!cycle.leaked)
        let text = LeakTrace.describe(snapshot, report: report, objects: Set(cycle.objects))
        #expect(text.contains("(held by a Dispatch timer (every 1 s, on tests), a local in"), "\(text)")
        // Unnamed again once the code says the holder let go.
        target.setOutsideHolder(nil)
        #expect(LeakGraph.snapshot().objects.first { $0.id == id }?.outsideHolders == [])
    }

    @Test("the dump writes an object's outside holders only where there are some")
    func dumpField() {
        var named = ObjectInfo(id: 1, type: "PeriodicWork", strongRetainCount: 1)
        named.outsideHolders = ["a Dispatch timer (every 1 s, on main)"]
        let json = JSONExporter.render(
            GraphSnapshot(objects: [named, ObjectInfo(id: 2, type: "Other", strongRetainCount: 1)], edges: []))
        #expect(json.contains(#""outsideHolders":["a Dispatch timer (every 1 s, on main)"]"#), "\(json)")
        #expect(json.components(separatedBy: "outsideHolders").count == 2)
    }
}
