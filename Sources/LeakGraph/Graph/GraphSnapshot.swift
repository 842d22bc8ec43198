/// An immutable picture of the live object graph at one moment.
///
/// Taken by ``LeakGraph/snapshot(options:)`` or decoded from a JSON dump. Pure data: analysing,
/// exporting or sending it to another thread never touches the registry or the objects.
///
/// ```swift
/// let snapshot = LeakGraph.snapshot()
/// let report = LeakDetector.analyze(snapshot)
/// print(report.cycles.filter(\.leaked).map(\.loopDescription))
/// // ["Parent —child→ Child —parent→ Parent"]
/// ```
public struct GraphSnapshot: Sendable, Hashable {
    /// Live objects, sorted by id.
    public var objects: [ObjectInfo]
    /// Ownership edges between objects in ``objects``.
    public var edges: [EdgeInfo]
    /// Allocation (and edge creation) stacks referenced by objects and edges.
    public var stacks: [StackInfo]
    /// When the snapshot was taken, in seconds since the Unix epoch.
    public var time: Double
    /// What reference discovery could not read (a closure capture of an unresolvable type, a
    /// collection whose storage it does not know): references there count as held from
    /// outside, so they can make a verdict "retained", never "leaked". Empty when nothing was
    /// hidden.
    public var discoveryLimits: [String] = []
    /// Objects whose memory held references discovery could not type, where and why, in object
    /// id order (one record per object and reason). What those references hold counts as held
    /// from outside; ``LeakReport/possibleLeaks`` names the cycles that could be leaked if
    /// they were read.
    public var unreadReferences: [UnreadReferenceInfo] = []
    /// Where the stored properties that cycles go through are declared (the lines a fix
    /// changes), where they could be found; filled when a snapshot is described or dumped.
    public var fieldDeclarations: [FieldDeclaration] = []

    /// The declaration of `field` in objects of `type`, when known.
    public func declaration(of field: String, in type: String) -> FieldDeclaration? {
        fieldDeclarations.first { $0.type == type && $0.field == field }
    }

    /// Creates a snapshot from parts (tests and tools build graphs this way).
    public init(objects: [ObjectInfo], edges: [EdgeInfo], stacks: [StackInfo] = [], time: Double = 0) {
        // Already in id order is the common case (a registry without deaths, a dump): checking
        // is one pass, sorting copies every object.
        let ordered = objects.indices.dropFirst().allSatisfy { objects[$0 - 1].id < objects[$0].id }
        self.objects = ordered ? objects : objects.sorted { $0.id < $1.id }
        self.edges = edges
        self.stacks = stacks
        self.time = time
    }

    /// The object with `id`, if it is in the snapshot (binary search).
    public func object(_ id: UInt64) -> ObjectInfo? {
        position(of: id).map { objects[$0] }
    }

    /// The index in ``objects`` of the object with `id`: for reading one field of many objects
    /// without copying each whole.
    package func position(of id: UInt64) -> Int? {
        var low = 0
        var high = objects.count
        while low < high {
            let mid = (low + high) / 2
            if objects[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < objects.count && objects[low].id == id ? low : nil
    }

    /// The stack with `id`.
    public func stack(_ id: Int?) -> StackInfo? {
        guard let id else { return nil }
        if id >= 0 && id < stacks.count && stacks[id].id == id { return stacks[id] }
        // Ids ascend (a dump that writes some stacks keeps their ids): a binary search, then a
        // scan for a list built by hand in another order.
        var low = 0
        var high = stacks.count
        while low < high {
            let mid = (low + high) / 2
            if stacks[mid].id < id { low = mid + 1 } else { high = mid }
        }
        if low < stacks.count && stacks[low].id == id { return stacks[low] }
        return stacks.first { $0.id == id }
    }

    /// The objects allocated at or after `checkpoint`.
    public func objects(since checkpoint: Checkpoint) -> [ObjectInfo] {
        objects.filter { $0.id >= checkpoint.nextObjectID && !$0.isDiscoveredNode }
    }
}

/// An address that takes no part in equality (see ``ObjectInfo/address``).
struct SnapshotLocation: Sendable, Hashable {
    var address: UInt = 0
    static func == (_: SnapshotLocation, _: SnapshotLocation) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

/// One live object in a snapshot.
public struct ObjectInfo: Sendable, Hashable, Codable {
    // Stored compactly (104 bytes instead of 136: a snapshot keeps one per live object, a
    // million in a big dump at exit): the optional counts and the stack id as plain numbers
    // with their presence in `flags`, the small fields together. The public properties below
    // read and write them; the coded form is unchanged.

    /// Unique id (allocation order; never reused in a process).
    public var id: UInt64
    /// Type name as Swift prints it, with generic arguments: `PublishSubject<Int>`.
    public var type: String
    /// The label given at allocation, if any.
    public var label: String?
    /// Allocation time, seconds since the Unix epoch (millisecond resolution).
    public var time: Double
    /// The globals found holding the object (`Cache.shared : Cache`, its image), named when a
    /// leak description looks for the holders the graph does not show; empty when none was.
    public var heldByGlobals: [String] = []
    /// What holds the object from outside the graph: as the code that handed it over said
    /// (``TrackedObject/setOutsideHolder(_:)``: a Dispatch timer, a queue's pending work), and
    /// the threads' stacks found holding it when a leak description looked (`a local in
    /// testCache() at CacheTests.swift:21`, `the stack of thread 'poller' (tid 4242)`).
    public var outsideHolders: [String] = []
    private var location = SnapshotLocation()
    private var retainCountValue = 0
    private var stackValue = 0
    private var weakAndUnownedValue = 0
    /// The leak scope the object was allocated in (0 for none).
    public var scope: UInt32
    /// The lifecycle state the object reported.
    public var state: ObjectState
    private var flags: UInt8 = 0

    private static let hasRetainCount: UInt8 = 1
    private static let hasStack: UInt8 = 2
    private static let hasWeakAndUnowned: UInt8 = 4
    private static let recordedProcessWide: UInt8 = 8

    /// Strong retain count read from the Swift runtime (the snapshot's own hold excluded), or nil
    /// when unknown (graphs built by hand or from tools).
    public var strongRetainCount: Int? {
        get { flags & Self.hasRetainCount != 0 ? retainCountValue : nil }
        set {
            retainCountValue = newValue ?? 0
            flags.set(Self.hasRetainCount, newValue != nil)
        }
    }
    /// Id of the allocation stack in ``GraphSnapshot/stacks``.
    public var stack: Int? {
        get { flags & Self.hasStack != 0 ? stackValue : nil }
        set {
            stackValue = newValue ?? 0
            flags.set(Self.hasStack, newValue != nil)
        }
    }
    /// Whether whole-process tracking recorded the object (``LeakGraph/trackAllObjects()``), as
    /// opposed to a ``TrackedObject`` or an object given to ``LeakGraph/track(_:label:)``.
    public var isRecordedProcessWide: Bool {
        get { flags & Self.recordedProcessWide != 0 }
        set { flags.set(Self.recordedProcessWide, newValue) }
    }
    /// The `weak` and `unowned` references to the object that the Swift runtime counts, or nil
    /// when unknown (graphs built by hand or read from a dump). More of them than the graph's
    /// weak and unowned edges into the object means code the graph does not show can still
    /// reach it: a subscription it feeds can still get events (see ``LeakReport/canNeverFinish``).
    public var weakAndUnownedReferenceCount: Int? {
        get { flags & Self.hasWeakAndUnowned != 0 ? weakAndUnownedValue : nil }
        set {
            weakAndUnownedValue = newValue ?? 0
            flags.set(Self.hasWeakAndUnowned, newValue != nil)
        }
    }
    /// Where the object was when the snapshot was taken (0: unknown — a graph built by hand or
    /// read from a dump). Only for naming what holds it, while it is alive; not part of the
    /// object's value (two snapshots of one object are equal wherever it lives).
    var address: UInt {
        get { location.address }
        set { location.address = newValue }
    }

    // `isRecordedProcessWide`, `weakAndUnownedReferenceCount` and `heldByGlobals` are not coded: data coded
    // before they existed still decodes (the dump format carries the first as `processWide`, and
    // the lifecycle verdicts the second leads to).
    private enum CodingKeys: String, CodingKey {
        case id, type, label, strongRetainCount, stack, time, state, scope
    }

    /// Decodes an object coded with the keys above (nothing else is read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UInt64.self, forKey: .id), type: try container.decode(String.self, forKey: .type),
            label: try container.decodeIfPresent(String.self, forKey: .label),
            strongRetainCount: try container.decodeIfPresent(Int.self, forKey: .strongRetainCount),
            stack: try container.decodeIfPresent(Int.self, forKey: .stack),
            time: try container.decode(Double.self, forKey: .time),
            state: try container.decode(ObjectState.self, forKey: .state),
            scope: try container.decode(UInt32.self, forKey: .scope))
    }

    /// Codes the object with the keys above; nil properties are left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(strongRetainCount, forKey: .strongRetainCount)
        try container.encodeIfPresent(stack, forKey: .stack)
        try container.encode(time, forKey: .time)
        try container.encode(state, forKey: .state)
        try container.encode(scope, forKey: .scope)
    }

    /// Creates an object description.
    /// Ids from here on name heap objects discovery added to the graph (shared storage, untracked
    /// objects between tracked ones), not tracked allocations: the base plus the object's
    /// address / 8, so the same object has the same id in every snapshot while it lives.
    public static let discoveredNodeIDBase: UInt64 = 1 << 62

    /// Whether this is a node discovery added (see ``discoveredNodeIDBase``).
    public var isDiscoveredNode: Bool { id >= Self.discoveredNodeIDBase }

    public init(
        id: UInt64, type: String, label: String? = nil, strongRetainCount: Int? = nil, stack: Int? = nil,
        time: Double = 0, state: ObjectState = .unspecified, scope: UInt32 = 0
    ) {
        self.id = id
        self.type = type
        self.label = label
        self.time = time
        self.state = state
        self.scope = scope
        self.strongRetainCount = strongRetainCount
        self.stack = stack
    }

    /// `Sink<Int>` → `Sink`; `Module.Type` → `Type`: a type's name without generic arguments or
    /// module, as rules and disposal labels name owners. A closure context is named after the
    /// function its closure is in (`context of closure #1 in static Tests.testDemand<A>(_:)` →
    /// `context of testDemand`), a thunk's after nothing (its name is a signature): cut at a dot
    /// like a type, those gave `testDemand` and `Output) -> (@unowned Bool)`.
    static func baseTypeName(_ type: String) -> String {
        let contextPrefix = namedClosureContextPrefix
        if type.hasPrefix(contextPrefix) {
            let described = type.dropFirst(contextPrefix.count)
            if described.hasPrefix("thunk ") || described.hasPrefix("reabstraction thunk") {
                return contextPrefix + "a thunk"
            }
            var function =
                described.range(of: " in ", options: .backwards).map { described[$0.upperBound...] } ?? described
            for qualifier in ["static ", "class ", "variable initialization expression of "]
            where function.hasPrefix(qualifier) {
                function = function.dropFirst(qualifier.count)
            }
            let components = function.prefix { $0 != "<" && $0 != "(" }.split(separator: ".")
            guard let last = components.last else { return type }
            // An accessor keeps its property: `T.value.getter` → `value.getter`.
            if components.count >= 2, Self.accessorNames.contains(String(last)) {
                return contextPrefix + components[components.count - 2] + "." + last
            }
            return contextPrefix + last
        }
        let plain = type.prefix { $0 != "<" }
        return String(plain.split(separator: ".").last ?? plain)
    }

    /// How a closure context named after its closure's function starts (`context of closure #1
    /// in f()`; the symbolicator names them).
    static let namedClosureContextPrefix = "context of "

    /// What `swift-demangle --simplified` ends an accessor's name with.
    private static let accessorNames: Set<String> = [
        "getter", "setter", "modify", "read", "didset", "willset", "unsafeAddressor", "unsafeMutableAddressor",
    ]

    /// `Type "label" #id`, as reports name an object.
    public var displayName: String {
        if let label { return "\(type) \"\(label)\" #\(id)" }
        return "\(type) #\(id)"
    }
}

/// One ownership edge in a snapshot.
public struct EdgeInfo: Sendable, Hashable, Codable {
    // Stored compactly (80 bytes instead of 104: a snapshot keeps one per edge, a million in a
    // big dump at exit): the optional site and closure address as plain numbers with their
    // presence in `flags`. The public properties below read and write them; the coded form is
    // unchanged.

    /// The owner's id.
    public var from: UInt64
    /// The target's id.
    public var to: UInt64
    /// The role or property path: `sink`, `items[2]`, `state.observer`, `capture`.
    public var label: String
    /// For a `capture` edge: the closure that captures the target (symbolicated on export).
    public var closure: String?
    /// How many references this edge stands for (the same owner holding the same target twice
    /// under one label counts 2).
    public var count: Int
    private var siteValue = 0
    private var closureAddressValue: UInt = 0
    /// Whether the reference keeps the target alive.
    public var kind: EdgeKind
    /// Declared by code, or found by reflection or closure scanning.
    public var origin: EdgeOrigin
    private var flags: UInt8 = 0

    private static let hasSite: UInt8 = 1
    private static let hasClosureAddress: UInt8 = 2

    /// Stack id of the place the edge was made, when recorded.
    public var site: Int? {
        get { flags & Self.hasSite != 0 ? siteValue : nil }
        set {
            siteValue = newValue ?? 0
            flags.set(Self.hasSite, newValue != nil)
        }
    }
    /// For a `capture` edge: the closure's code address (resolved to ``closure`` on export).
    public var closureAddress: UInt? {
        get { flags & Self.hasClosureAddress != 0 ? closureAddressValue : nil }
        set {
            closureAddressValue = newValue ?? 0
            flags.set(Self.hasClosureAddress, newValue != nil)
        }
    }

    /// Creates an edge description.
    public init(
        from: UInt64, to: UInt64, kind: EdgeKind = .strong, label: String, origin: EdgeOrigin = .declared,
        count: Int = 1, site: Int? = nil, closure: String? = nil, closureAddress: UInt? = nil
    ) {
        self.from = from
        self.to = to
        self.kind = kind
        self.label = label
        self.origin = origin
        self.count = count
        self.closure = closure
        self.site = site
        self.closureAddress = closureAddress
    }

    private enum CodingKeys: String, CodingKey {
        case from, to, kind, label, origin, count, site, closure, closureAddress
    }

    /// Decodes an edge coded with its properties' names as keys.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            from: try container.decode(UInt64.self, forKey: .from), to: try container.decode(UInt64.self, forKey: .to),
            kind: try container.decode(EdgeKind.self, forKey: .kind),
            label: try container.decode(String.self, forKey: .label),
            origin: try container.decode(EdgeOrigin.self, forKey: .origin),
            count: try container.decode(Int.self, forKey: .count),
            site: try container.decodeIfPresent(Int.self, forKey: .site),
            closure: try container.decodeIfPresent(String.self, forKey: .closure),
            closureAddress: try container.decodeIfPresent(UInt.self, forKey: .closureAddress))
    }

    /// Codes the edge with its properties' names as keys; nil properties are left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(kind, forKey: .kind)
        try container.encode(label, forKey: .label)
        try container.encode(origin, forKey: .origin)
        try container.encode(count, forKey: .count)
        try container.encodeIfPresent(site, forKey: .site)
        try container.encodeIfPresent(closure, forKey: .closure)
        try container.encodeIfPresent(closureAddress, forKey: .closureAddress)
    }
}

extension UInt8 {
    /// Sets or clears `flag`: the presence bits of ``ObjectInfo``'s and ``EdgeInfo``'s optional
    /// numbers.
    fileprivate mutating func set(_ flag: UInt8, _ on: Bool) {
        self = on ? self | flag : self & ~flag
    }
}

/// A captured stack: raw return addresses, and once symbolicated, readable frames.
public struct StackInfo: Sendable, Hashable, Codable {
    /// Id referenced by ``ObjectInfo/stack`` and ``EdgeInfo/site``.
    public var id: Int
    /// Raw return addresses (empty in stacks decoded from a dump).
    public var addresses: [UInt]
    /// Readable frames, innermost first: `ViewModel.bind(_:) at Sources/App/ViewModel.swift:12`.
    public var frames: [String]
    /// Index in ``frames`` of the first frame in user code (not LeakGraph, not the runtime).
    public var userFrame: Int?

    /// Creates a stack description.
    public init(id: Int, addresses: [UInt] = [], frames: [String] = [], userFrame: Int? = nil) {
        self.id = id
        self.addresses = addresses
        self.frames = frames
        self.userFrame = userFrame
    }

    /// The first frame in user code, or the first frame.
    public var userFrameDescription: String? {
        if let userFrame, userFrame >= 0, userFrame < frames.count { return frames[userFrame] }
        return frames.first
    }

    /// Whether the frames still have to be resolved.
    public var needsSymbolication: Bool { frames.isEmpty && !addresses.isEmpty }
}

/// Memory of one object that held references discovery could not type (see
/// ``GraphSnapshot/unreadReferences``).
///
/// ```swift
/// for unread in LeakGraph.snapshot().unreadReferences {
///     print("#\(unread.object) \(unread.place): \(unread.why)")
///     // #12 capture: a capture whose type depends on a generic parameter the context does not store
/// }
/// ```
public struct UnreadReferenceInfo: Sendable, Hashable, Codable {
    /// The object's id.
    public var object: UInt64
    /// Where in the object: a field path (`capture`, `handlers[…]`), or `fields`.
    public var place: String
    /// Why it could not be read, in words for the user.
    public var why: String

    /// Whether the unread memory is a closure's capture (its reason says "a capture …").
    public var isCapture: Bool { why.hasPrefix("a capture") }

    /// Whether the memory is a task's (its closure's context and suspended frames): what a task
    /// holds, like a closure's captures, is what can hold its owner.
    public var isTaskMemory: Bool { why.hasPrefix(Self.taskMemoryReason) }

    /// Why a task's memory is said unread (see ``isTaskMemory``).
    static let taskMemoryReason = "the memory of a task"

    /// Creates a record.
    public init(object: UInt64, place: String, why: String) {
        self.object = object
        self.place = place
        self.why = why
    }
}
