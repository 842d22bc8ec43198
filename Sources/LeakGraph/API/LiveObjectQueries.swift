/// Questions a test asks about what is alive, answered from the registry without a snapshot.
extension LeakGraph {
    /// How many tracked instances of `type` (or of its subclasses) are alive now.
    ///
    /// Cheap: one pass over the registry's table under its lock (no snapshot, no retain, no
    /// reflection), so a test can ask it after every step.
    ///
    /// ```swift
    /// XCTAssertEqual(LeakGraph.liveCount(of: ViewModel.self), 0)
    /// ```
    public static func liveCount<T: AnyObject>(of type: T.Type) -> Int {
        Registry.shared.liveSlots(ofClass: metadataAddress(of: type)).count
    }

    /// The tracked instances of `type` (or of its subclasses) alive now, as a snapshot describes
    /// them (type, label, allocation stack, state), oldest first.
    ///
    /// ```swift
    /// for model in LeakGraph.liveObjects(of: ViewModel.self) { print(model.displayName) }
    /// ```
    public static func liveObjects<T: AnyObject>(of type: T.Type) -> [ObjectInfo] {
        let ids = Set(Registry.shared.liveSlots(ofClass: metadataAddress(of: type)).map(\.id))
        guard !ids.isEmpty else { return [] }
        return snapshot(options: .declaredOnly).objects.filter { ids.contains($0.id) }.sorted { $0.id < $1.id }
    }

    private static func metadataAddress<T: AnyObject>(of type: T.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type as AnyClass, to: UnsafeRawPointer.self))
    }
}

extension Registry {
    /// The id and slot of every live object whose class is `metadata` or a subclass of it.
    func liveSlots(ofClass metadata: UInt) -> [(id: UInt64, slot: Int32)] {
        // Whether each distinct class seen is the one asked for or a subclass of it: the
        // superclass chain is walked once per class, not once per object.
        var matches: [UInt: Bool] = [metadata: true]
        return withStateForSnapshot { state in
            var found: [(id: UInt64, slot: Int32)] = []
            for index in 0..<state.objectSlotCount {
                let object = state.object(inSlot: index)
                guard object.address != 0, object.metadata != 0 else { continue }
                let isMatch: Bool
                if let known = matches[object.metadata] {
                    isMatch = known
                } else {
                    isMatch = Self.isClass(object.metadata, subclassOf: metadata)
                    matches[object.metadata] = isMatch
                }
                if isMatch { found.append((object.id, Int32(index))) }
            }
            return found
        }
    }

    /// Whether the class whose metadata is at `candidate` is `ancestor` or inherits from it.
    private static func isClass(_ candidate: UInt, subclassOf ancestor: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: candidate) else { return false }
        var current: AnyClass? = unsafeBitCast(pointer, to: AnyClass.self)
        while let some = current {
            if UInt(bitPattern: unsafeBitCast(some, to: UnsafeRawPointer.self)) == ancestor { return true }
            current = _getSuperclass(some)
        }
        return false
    }
}
