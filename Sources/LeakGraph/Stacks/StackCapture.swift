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

    /// Calls `body` with the caller's stack (minus `skip` frames) and the capture's key: the
    /// token of the remembered walk its frames came from (0 when they were walked), which with
    /// the first frame and the count names exactly these frames (``StackKey``).
    @inline(never)
    static func withStack<R>(depth: Int, skip: Int, _ body: (UnsafeBufferPointer<UInt>?, UInt64) -> R) -> R {
        if depth <= 0 { return body(nil, 0) }
        // The thread's scratch buffer, unless a capture is already using it (or the depth is
        // beyond it): then a buffer of its own. Either way the capture is called from this
        // function, so both number the frames alike.
        let scratch = depth <= Int(LG_STACK_SCRATCH_CAPACITY) ? lg_stack_scratch_acquire() : nil
        let buffer = scratch ?? UnsafeMutablePointer<UInt>.allocate(capacity: depth)
        defer {
            if scratch != nil { lg_stack_scratch_release() } else { buffer.deallocate() }
        }
        var token: UInt64 = 0
        let count = Int(lg_capture_stack_keyed(buffer, Int32(depth), Int32(skip + 1), &token))
        return body(UnsafeBufferPointer(start: buffer, count: count), token)
    }
}

/// What a repeated capture's frames are known by on the thread that made them: its remembered
/// walk's token, first frame and count, under which the thread keeps the registry stack number
/// they were interned as (`lg_keyed_stack_lookup`), so a repeat is not hashed under the lock.
struct StackKey {
    private let token: UInt64
    private let first: UInt
    private let count: Int32

    /// The key of `frames` captured with `token`; nil for frames that were walked (token 0).
    init?(_ frames: UnsafeBufferPointer<UInt>?, token: UInt64) {
        guard token != 0, let frames, let first = frames.first else { return nil }
        self.token = token
        self.first = first
        count = Int32(frames.count)
    }

    /// The registry stack number this thread remembered for the key.
    var knownStack: Int32? {
        let stack = lg_keyed_stack_lookup(token, first, count)
        return stack >= 0 ? stack : nil
    }

    /// Remembers `stack` (ignored when -1) for the key on this thread.
    func remember(_ stack: Int32) { lg_keyed_stack_remember(token, first, count, stack) }
}
