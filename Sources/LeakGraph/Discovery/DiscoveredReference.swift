/// A reference found at snapshot time, before it is merged with the declared edges.
struct DiscoveredReference {
    /// The owner: an index into the snapshot's objects (tracked objects first, then the nodes
    /// discovery added).
    let from: Int
    /// The target: a tracked object's address, or a node discovery added.
    let to: Target
    var kind: EdgeKind
    let label: String
    let origin: EdgeOrigin
    let closureAddress: UInt?

    enum Target: Hashable {
        /// A held object, by its position among the snapshot's objects.
        case tracked(Int)
        case node(Int)
    }
}

/// Memory of one object that held references discovery could not type: what it holds there
/// counts as held from outside, which can turn a leak into "retained". Reports say so.
struct UnreadReference: Equatable {
    /// The owner, as ``DiscoveredReference/from``.
    let owner: Int
    /// Where in the owner: a field path (`capture`, `handlers[2]`) or `fields`.
    let place: String
    /// Why, in words for the user.
    let why: String
}

/// A heap object discovery made a node of its own: storage with more than one holder (an array
/// buffer, a dictionary's storage, a closure context, a `var` box, an indirect enum's box, an
/// existential's box), so that the references inside it are not charged to one owner, or an
/// untracked object on a path between tracked ones.
struct DiscoveredNode {
    let address: UInt
    let type: String
    let retainCount: Int
    /// `weak` and `unowned` references to it; nil when unknown. Storage (buffers, boxes,
    /// contexts) cannot be the target of either.
    var weakAndUnownedReferences: Int? = 0
    /// For a task: the code addresses in its header (where it will resume), symbolized to name
    /// what it waits in.
    var codeAddresses: [UInt] = []
    /// What the walk knows of it beyond its type (a task's status: `suspended, priority medium`).
    var label: String?
    /// A task not finished is `.active`: still able to do work, or waiting to.
    var state: ObjectState = .unspecified
}
