import CLeakGraphSupport

/// Captures stacks on the hot path, before the registry lock is taken, into temporary storage.
enum StackCapture {
    /// Whether the configured mode wants a stack for this allocation (advances the sample counter).
    @inline(__always)
    static func wanted() -> Int {
        let configuration = Configuration.shared
        let interval = configuration.stackInterval.load(ordering: .relaxed)
        if interval == 0 { return 0 }
        if interval > 1 {
            let n = configuration.allocationCounter.wrappingAdd(1, ordering: .relaxed).newValue
            if n % interval != 0 { return 0 }
        }
        return configuration.stackDepth.load(ordering: .relaxed)
    }

    /// ``withStack(depth:skip:_:)``, also handing `body` the capture's key: the token of the
    /// remembered walk its frames came from (0 when they were walked), which with the first frame
    /// and the count names exactly these frames (`lg_keyed_stack_lookup`).
    @inline(never)
    static func withKeyedStack<R>(depth: Int, skip: Int, _ body: (UnsafeBufferPointer<UInt>?, UInt64) -> R) -> R {
        if depth <= 0 { return body(nil, 0) }
        // As in `withStack`: the C call is made from this function's own frame.
        let scratch = depth <= Int(LG_STACK_SCRATCH_CAPACITY) ? lg_stack_scratch_acquire() : nil
        let buffer = scratch ?? UnsafeMutablePointer<UInt>.allocate(capacity: depth)
        defer {
            if scratch != nil { lg_stack_scratch_release() } else { buffer.deallocate() }
        }
        var token: UInt64 = 0
        let count = Int(lg_capture_stack_keyed(buffer, Int32(depth), Int32(skip + 1), &token))
        return body(UnsafeBufferPointer(start: buffer, count: count), token)
    }

    @inline(never)
    static func withStack<R>(depth: Int, skip: Int, _ body: (UnsafeBufferPointer<UInt>?) -> R) -> R {
        if depth <= 0 { return body(nil) }
        // The thread's scratch buffer, unless a capture is already using it (or the depth is
        // beyond it): then a buffer of its own. Either way `lg_capture_stack` is called from
        // this function, so both number the frames alike.
        let scratch = depth <= Int(LG_STACK_SCRATCH_CAPACITY) ? lg_stack_scratch_acquire() : nil
        let buffer = scratch ?? UnsafeMutablePointer<UInt>.allocate(capacity: depth)
        defer {
            if scratch != nil { lg_stack_scratch_release() } else { buffer.deallocate() }
        }
        let count = Int(lg_capture_stack(buffer, Int32(depth), Int32(skip + 1)))
        return body(UnsafeBufferPointer(start: buffer, count: count))
    }
}
