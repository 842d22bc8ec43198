/// What a task's header says about it: its priority, whether it was cancelled, and whether it
/// is running, enqueued, suspended or finished.
///
/// Read from a copy of the task, at the places the Swift 6 runtime keeps them on 64-bit
/// platforms: the job's flags (kind, priority and kind of task) in the word after the two
/// scheduler words, and the active status's flags five words after the word where the task resumes
/// (found by shape, see `HeapWalker.resumeChain`). Each is checked against the values the runtime
/// can write; a header that does not fit gives no status, never a wrong one.
struct TaskStatus: Hashable {
    /// The priority the task runs at now (escalation raises it): `TaskPriority.rawValue`.
    let priority: UInt8
    let isCancelled: Bool
    let isRunning: Bool
    let isEnqueued: Bool
    let isComplete: Bool
    /// A child task: of an `async let`, or of a task group.
    let isAsyncLet: Bool
    let isGroupChild: Bool
    /// Any child task (its job flags say so): its parent's address follows the task's header.
    let isChild: Bool

    /// The job flags' place: after the heap object's header and the two scheduler words.
    static let jobFlagsOffset = 32
    /// The active status's flags, counted from the word where the task resumes.
    static let statusFromResume = 40
    /// A child task's parent (the first word of its child fragment, just past the task's fixed
    /// header), counted from the word where the task resumes: 208 bytes into the task in the
    /// Swift 6.3 runtime, checked at use (it must be another task's address).
    static let parentFromResume = 152

    /// The status in `task` (a copy of `size` bytes), whose resume word is at `resumeOffset`; nil
    /// when the words there are not what the runtime writes.
    init?(task: UnsafeRawPointer, size: Int, resumeOffset: Int) {
        let statusOffset = resumeOffset + Self.statusFromResume
        guard statusOffset + 4 <= size else { return nil }
        let job = task.load(fromByteOffset: Self.jobFlagsOffset, as: UInt32.self)
        let status = task.load(fromByteOffset: statusOffset, as: UInt32.self)
        // Kind 0 is a task; the known status flags are bits 8–15; a priority is at most 0x21.
        guard job & 0xFF == 0, status >> 16 == 0, status & 0xFF <= 0x21, (job >> 8) & 0xFF <= 0x21 else { return nil }
        priority = UInt8(status & 0xFF)
        isCancelled = status & 0x100 != 0
        isRunning = status & 0x800 != 0
        isEnqueued = status & 0x1000 != 0
        isComplete = status & 0x2000 != 0
        isGroupChild = job & (1 << 26) != 0
        isAsyncLet = job & (1 << 28) != 0
        isChild = job & (1 << 24) != 0
    }

    /// `running`, `enqueued`, `finished` or `suspended`.
    var state: String {
        if isComplete { return "finished" }
        if isRunning { return "running" }
        if isEnqueued { return "enqueued" }
        return "suspended"
    }

    /// `suspended, priority medium, cancelled, child of a task group`.
    var description: String {
        var parts = [state]
        if priority != 0 { parts.append("priority \(Self.priorityName(priority))") }
        if isCancelled { parts.append("cancelled") }
        if isGroupChild { parts.append("child of a task group") }
        if isAsyncLet { parts.append("async let") }
        return parts.joined(separator: ", ")
    }

    /// The name `TaskPriority` prints for a raw value (`high`, `medium`, `low`, `background`), or
    /// the number.
    static func priorityName(_ raw: UInt8) -> String {
        switch raw {
        case 25: "high"
        case 21: "medium"
        case 17: "low"
        case 9: "background"
        default: "\(raw)"
        }
    }
}
