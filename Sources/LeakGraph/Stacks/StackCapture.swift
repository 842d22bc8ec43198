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

    /// Calls `body` with the caller's stack (minus `skip` frames) when the mode wants one for this
    /// allocation, or with nil.
    @inline(__always)
    static func withStackIfWanted<R>(skip: Int, _ body: (UnsafeBufferPointer<UInt>?) -> R) -> R {
        let depth = wanted()
        if depth == 0 { return body(nil) }
        return withStack(depth: depth, skip: skip + 1, body)
    }

    @inline(never)
    static func withStack<R>(depth: Int, skip: Int, _ body: (UnsafeBufferPointer<UInt>?) -> R) -> R {
        if depth <= 0 { return body(nil) }
        // The thread's scratch buffer, unless a capture is already using it.
        if depth <= Int(LG_STACK_SCRATCH_CAPACITY), let scratch = lg_stack_scratch_acquire() {
            defer { lg_stack_scratch_release() }
            let count = Int(lg_capture_stack(scratch, Int32(depth), Int32(skip + 1)))
            return body(UnsafeBufferPointer(start: scratch, count: count))
        }
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: depth) { buffer in
            let count = Int(lg_capture_stack(buffer.baseAddress!, Int32(depth), Int32(skip + 1)))
            return body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
