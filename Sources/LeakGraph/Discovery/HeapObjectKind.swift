/// What a heap object is, read from the first word of its metadata: a class instance, a heap
/// local variable (a closure context or a `var` box, whose layout is a capture descriptor), or
/// anything else the runtime allocates (generic boxes, error boxes, tasks).
enum HeapObjectKind: Equatable {
    case classInstance
    case heapLocalVariable
    case other

    init(metadata: UnsafeRawPointer) {
        switch metadata.load(as: UInt.self) {
        // Swift classes have kind 0; on Apple platforms an Objective-C isa pointer sits there.
        case 0, 0x800...: self = .classInstance
        case 0x400: self = .heapLocalVariable
        default: self = .other
        }
    }
}
