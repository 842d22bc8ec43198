/// A task the graph can see (see ``LeakGraph/liveTasks()``).
public struct LiveTask: Sendable, Hashable {
    /// The task's node id in the snapshot it was found in.
    public var id: UInt64
    /// What it waits in, as the symbolizer names it (`closure #1 in Listener.start()`); nil when
    /// none of its resume points is the program's own.
    public var waitingIn: String?
    /// The closure it was started with (`closure #1 in Pool.start()`), the outermost function of
    /// the program's own it runs; nil when that is where it waits, or none is the program's own.
    public var startedIn: String?
    /// What its header says: `suspended, priority medium`, `running, priority high, cancelled`
    /// (nil when the header could not be read so).
    public var status: String?
    /// What holds it, as `Type —label→` steps (`Listener —task._task→`, `_Storage
    /// —state.continuations[0]→`): its handles and the continuations that can resume it.
    public var heldBy: [String]
    /// Whether it is part of a leaked cycle (it can never finish).
    public var leaked: Bool

    /// `Task waiting in closure #1 in Listener.start(), held by Listener —task._task→`.
    public var description: String {
        var text = "Task"
        if let waitingIn { text += " waiting in \(waitingIn)" }
        if let startedIn { text += " (started in \(startedIn))" }
        if let status { text += " (\(status))" }
        if !heldBy.isEmpty { text += ", held by " + heldBy.joined(separator: ", ") }
        if leaked { text += " (leaked: it can never finish)" }
        return text
    }
}

extension LeakGraph {
    /// The tasks the graph can see: those a stored `Task` handle or a pending continuation of an
    /// object in the graph holds (tracked objects; every object with whole-process tracking). A
    /// task nothing in the graph refers to — detached and forgotten, or held only by a local — is
    /// not seen. For tests that must end with nothing in flight:
    ///
    /// ```swift
    /// model.start()
    /// model.stop()
    /// #expect(LeakGraph.liveTasks().isEmpty)   // or expectNoRunningTasks() from LeakGraphTesting
    /// ```
    ///
    /// Cost: one full snapshot and the symbolication of the tasks' resume points.
    public static func liveTasks() -> [LiveTask] {
        let (found, report) = findLeaks()
        // Only the tasks are named: nothing else of the snapshot is shown.
        var snapshot = found
        Symbolicator.nameTasks(&snapshot)
        let tasks = snapshot.objects.filter { $0.type == TaskNode.typeName }
        guard !tasks.isEmpty else { return [] }
        let ids = Set(tasks.map(\.id))
        var holders: [UInt64: [String]] = [:]
        for edge in snapshot.edges where edge.kind.keepsAlive && ids.contains(edge.to) {
            let owner = snapshot.object(edge.from)?.type ?? "?"
            holders[edge.to, default: []].append("\(owner) —\(edge.label)→")
        }
        return tasks.map { task in
            // `waiting in f() · suspended, priority medium`, or the status alone.
            var waitingIn: String?
            var startedIn: String?
            var status: String?
            if let label = task.label {
                let separator = label.firstRange(of: TaskNode.statusSeparator)
                var place = separator.map { String(label[..<$0.lowerBound]) } ?? label
                if let verb = ["waiting in ", "running in "].first(where: { place.hasPrefix($0) }) {
                    if let started = place.firstRange(of: TaskNode.startedSeparator) {
                        startedIn = String(place[started.upperBound...])
                        place = String(place[..<started.lowerBound])
                    }
                    waitingIn = String(place.dropFirst(verb.count))
                    status = separator.map { String(label[$0.upperBound...]) }
                } else {
                    status = label
                }
            }
            return LiveTask(
                id: task.id, waitingIn: waitingIn, startedIn: startedIn, status: status, heldBy: holders[task.id] ?? [],
                leaked: report.leakedObjectIDs.contains(task.id))
        }
    }
}
