import LeakGraph
import Testing

private final class Session: TrackedObject {}
private final class Screen: TrackedObject {}
private final class Tab: TrackedObject {}

@Suite("checkpoint comparisons")
struct ObjectChangesTests {
    @Test("new, survived and dead objects by type since a recording checkpoint")
    func newSurvivedDead() {
        var sessions: [Session] = [Session(), Session()]
        let before = LeakGraph.checkpoint(recordingLiveObjects: true)
        #expect(before.recordsLiveObjects)
        let screens = [Screen(), Screen(), Screen()]
        sessions.removeFirst()
        let changes = LeakGraph.changes(since: before)
        #expect(changes.new(Screen.self) == 3)
        #expect(changes.survived(Session.self) == 1)
        #expect(changes.dead(Session.self) == 1)
        #expect(changes.new(Session.self) == 0)
        #expect(changes.newObjectIDs.count >= 3)
        withExtendedLifetime((sessions, screens)) {}
    }

    @Test("without recording, nothing says what died; equality and coding use the position only")
    func plainCheckpoint() throws {
        let plain = LeakGraph.checkpoint()
        let objects = [Tab()]
        let changes = LeakGraph.changes(since: plain)
        #expect(changes.dead == nil)
        #expect(changes.dead(Tab.self) == nil)
        #expect(changes.new(Tab.self) == 1)
        let recorded = LeakGraph.checkpoint(recordingLiveObjects: true)
        #expect(recorded == Checkpoint(nextObjectID: recorded.nextObjectID))
        withExtendedLifetime(objects) {}
    }
}
