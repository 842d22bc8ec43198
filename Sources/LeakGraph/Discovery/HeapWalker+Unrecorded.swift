import CLeakGraphSupport

/// Objects whole-process tracking did not record, reached from ones it did, and the state of
/// LeakGraph's own locks.
extension HeapWalker {
    /// Whether the object at `address`, which tracking did not record, is to be made a node: false
    /// when it is one already (the reference to it is added) or when there are too many.
    mutating func isNewUnrecordedNode(_ address: UInt, from work: Work, label: String) -> Bool {
        if let node = nodeOfAddress[address] {
            add(work, to: .node(node), kind: .strong, label: label)
            return false
        }
        guard nodes.count < Self.untrackedNodeLimit else {
            limits.insert("more than \(Self.untrackedNodeLimit) objects tracking did not record")
            return false
        }
        return true
    }

    /// A strong reference, in a whole-process snapshot, to a live object whole-process tracking
    /// did not record: one `libswiftCore` allocated itself for a user type (in a debug build
    /// `ManagedBuffer.create` is not inlined, so swift-collections' `Deque` buffers are made
    /// there), or one made before tracking began. It becomes a node, read through fault-safe
    /// copies (another thread may free it meanwhile), and its own references are followed.
    mutating func unrecorded(_ word: UInt, from work: Work, label: String) {
        guard isNewUnrecordedNode(word, from: work, label: label) else { return }
        // A recorded object this snapshot does not hold is not one of its objects.
        if asksWhetherRecorded && lg_process_is_recorded(word) != 0 { return }
        // Statically allocated objects (empty collections' singletons) live in an image.
        guard !map.isImage(word, length: 16),
            let header = memory.read(word, count: 16)
        else { return }
        let metadataWord = header.load(as: UInt.self)
        if let kind = memory.readMetadata(metadataWord, count: 8)?.load(as: UInt.self),
            kind == HeapObjectKind.taskMetadataKind
        {
            task(word, from: work, label: label)
            return
        }
        // A class whose nominal descriptor checks out (`isUsableType` remembers it).
        guard memory.isUsableType(metadataWord),
            let metadata = memory.readMetadata(metadataWord, count: ClassMetadataLayout.instanceSizeOffset + 4),
            metadata.load(as: UInt.self) == 0 || metadata.load(as: UInt.self) >= 0x800,
            let metadataPointer = UnsafeRawPointer(bitPattern: metadataWord)
        else { return }
        let cls: AnyClass = unsafeBitCast(metadataPointer, to: AnyClass.self)
        let walkable = walkableClasses[metadataWord] ?? Self.isWalkable(cls)
        walkableClasses[metadataWord] = walkable
        guard walkable else {
            foundationNode(
                word, cls, key: metadataWord, retainCount: UnheldMemory.strongCount(header: header) ?? Int(Int32.max),
                from: work, label: label)
            return
        }
        let instanceSizeOffset = ClassMetadataLayout.instanceSizeOffset
        let instanceSize = Int(metadata.load(fromByteOffset: instanceSizeOffset, as: UInt32.self))
        let plan = instancePlans[metadataWord] ?? TypePlan.ofInstances(cls)
        instancePlans[metadataWord] = plan
        // The plan may read past the declared size (a tail-allocated continuation).
        guard instanceSize >= 16, instanceSize <= 1 << 20,
            let instance = memory.read(word, count: max(instanceSize, plan.bytesRead))
        else { return }
        let holders = UnheldMemory.strongCount(header: instance) ?? Int(Int32.max)
        let node = addNode(word, type: displayTypeName(cls), retainCount: holders)
        // From the copied header: inline counts only (a side table may be freed meanwhile).
        nodes[node].weakAndUnownedReferences = inlineWeakAndUnownedReferences(instance)
        add(work, to: .node(node), kind: .strong, label: label)
        if metadataWord == LockStorage.metadataAddress {
            lockedState(word, instance: instance, owner: trackedCount + node)
            return
        }
        if let reason = plan.unreadReason, plan.steps.isEmpty {
            noteUnread(owner: trackedCount + node, in: "", why: reason)
        }
        if let tail = plan.tail { unheldTail(tail, at: word, atLeast: instanceSize, owner: trackedCount + node) }
        if let element = arrayStorageElement(metadataWord) {
            arrayElements(of: word, element: element, owner: trackedCount + node)
            return
        }
        guard !plan.steps.isEmpty else { return }
        stack.append(
            Work(
                base: instance, plan: plan, owner: trackedCount + node, prefix: "", origin: .reflected, closure: nil,
                hops: 0))
    }

    /// The element type of `_ContiguousArrayStorage<Element>`: an array's buffer reached as an
    /// object of its own (from a global, where no field's type says it is an array), nil for any
    /// other class. Its generic argument is in the class metadata, after its ancestors' members.
    mutating func arrayStorageElement(_ metadataWord: UInt) -> Any.Type? {
        if let known = arrayElementTypes[metadataWord] { return known.map { unsafeBitCast($0, to: Any.Type.self) } }
        var element: UnsafeRawPointer?
        defer { arrayElementTypes[metadataWord] = .some(element) }
        // Everything read through copies: the word may be any object's class, or a stale word's.
        let descriptionOffset = ClassMetadataLayout.descriptionOffset
        guard let metadata = memory.copyOfReadable(metadataWord, count: descriptionOffset + 8),
            case let kind = metadata.load(as: UInt.self), kind == 0 || kind >= 0x800
        else { return nil }
        let descriptorWord = metadata.load(fromByteOffset: descriptionOffset, as: UInt.self)
        // Flags, parent, name, access function, fields, superclass, negative and positive
        // metadata sizes, immediate members: 36 bytes, in an image; the name's 24 bytes too.
        let expectedName = Array("_ContiguousArrayStorage".utf8) + [0]
        guard let descriptor = memory.classDescriptorCopy(descriptorWord, count: 36),
            case let nameOffset = Int(descriptor.load(fromByteOffset: 8, as: Int32.self)),
            case let nameAddress = UInt(bitPattern: Int(descriptorWord) + 8 + nameOffset),
            map.isImage(nameAddress, length: UInt(expectedName.count)),
            let name = memory.copyOfReadable(nameAddress, count: expectedName.count),
            expectedName.indices.allSatisfy({ name.load(fromByteOffset: $0, as: UInt8.self) == expectedName[$0] })
        else { return nil }
        // A resilient superclass would place the arguments where only the runtime knows.
        let hasResilientSuperclass = (descriptor.load(as: UInt32.self) >> 16) & (1 << 13) != 0
        let positiveWords = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
        let immediateMembers = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
        let argumentOffset = (positiveWords - immediateMembers) * 8
        guard !hasResilientSuperclass, argumentOffset > descriptionOffset, argumentOffset < 4096,
            let arguments = memory.copyOfReadable(metadataWord, count: argumentOffset + 8)
        else { return nil }
        let argument = arguments.load(fromByteOffset: argumentOffset, as: UInt.self)
        guard memory.isUsableType(argument), let pointer = UnsafeRawPointer(bitPattern: argument) else { return nil }
        element = pointer
        return unsafeBitCast(pointer, to: Any.Type.self)
    }

    /// The elements of the array buffer at `address` (see ``arrayStorageElement(_:)``), each read as
    /// a field of `element`'s type through a copy.
    mutating func arrayElements(of address: UInt, element: Any.Type, owner: Int) {
        let metadata = unsafeBitCast(element, to: UnsafeRawPointer.self)
        let stride = max(1, lg_type_stride(metadata))
        let alignment = Int(lg_type_flags(metadata) & 0xFF) + 1
        let start = (Self.arrayHeaderBytes + alignment - 1) / alignment * alignment
        guard let header = memory.copyOf(address, count: Self.arrayHeaderBytes) else { return }
        let count = header.load(fromByteOffset: 16, as: Int.self)
        let plan = TypePlan.of(element)
        guard count > 0, !plan.steps.isEmpty, count <= (Self.maximumTailBytes - start) / stride,
            let elements = memory.read(address, count: start + count * stride)
        else { return }
        if let reason = plan.unreadReason { noteUnread(owner: owner, in: "[…]", why: reason) }
        for index in 0..<count {
            stack.append(
                Work(
                    base: elements + start + index * stride, plan: plan, owner: owner, prefix: "[\(index)]",
                    origin: .reflected, closure: nil, hops: 0))
        }
    }

    /// An array buffer's header: the object's two words, its count and its capacity.
    static let arrayHeaderBytes = 32

    /// The state a ``Locked`` keeps in its storage's tail (LeakGraph's own lock, which other
    /// libraries' objects hold: a LeakGraphRx subject's observers are there). Its type is in the
    /// storage's header; `instance` is a copy of the storage's object part.
    mutating func lockedState(_ address: UInt, instance: UnsafeRawPointer, owner: Int) {
        let typeWord = instance.load(fromByteOffset: LockStorage.stateTypeOffset, as: UInt.self)
        guard memory.isUsableType(typeWord), let typePointer = UnsafeRawPointer(bitPattern: typeWord) else {
            noteUnread(owner: owner, in: "state", why: "the state of a lock whose type cannot be checked")
            return
        }
        let type = unsafeBitCast(typePointer, to: Any.Type.self)
        let plan = TypePlan.of(type)
        let alignment = Int(lg_type_flags(typePointer) & 0xFF) + 1
        let offset = (LockStorage.tailOffset + alignment - 1) / alignment * alignment
        guard !plan.steps.isEmpty || !plan.complete,
            let state = memory.read(address, count: offset + max(1, lg_type_size(typePointer)))
        else { return }
        stack.append(
            Work(
                base: state + offset, plan: plan, owner: owner, prefix: "state", origin: .reflected, closure: nil,
                hops: 0))
    }
}
