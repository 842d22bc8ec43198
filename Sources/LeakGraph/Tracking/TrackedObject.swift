import CLeakGraphSupport

/// A class whose instances LeakGraph tracks from `init` to `deinit`.
///
/// Subclass it and every instance is registered with a unique id, its type name as Swift prints
/// it (`PublishSubject<Int>`), an optional label, the allocation time and, depending on
/// ``LeakGraph/stackCaptureMode``, its allocation stack. The instance unregisters itself in
/// `deinit`, removing every edge from or to it.
///
/// ```swift
/// final class ViewModel: TrackedObject {
///     @StrongRef var peer: ViewModel?
/// }
/// let model = ViewModel(label: "main screen")
/// ```
///
/// Cost: with tracking on and stacks off, registering and unregistering take one short critical
/// section each (about 0.1 µs in all); with `LEAKGRAPH=off`, one relaxed atomic load.
/// Thread safety: instances may be created and destroyed on any thread.
open class TrackedObject {
    /// The registry slot, or -1 when tracking was off at allocation.
    // Unchecked exclusivity: written only by `init`, before the object can be shared, and only
    // read after; the dynamic check on every read (in `deinit` too) cost ~150 instructions per
    // object.
    @exclusivity(unchecked) final private(set) var leakGraphSlot: Int32 = -1

    /// Registers the new instance.
    ///
    /// - Parameter label: A name shown in reports next to the type (for example which screen a
    ///   view model belongs to).
    @inline(__always)
    public init(label: String? = nil) {
        #if !LEAKGRAPH_DISABLED
            if Configuration.shared.enabled.load(ordering: .relaxed) {
                leakGraphSlot = TrackedObject.register(self, label: label)
            }
        #endif
    }

    /// Registers the new instance with its first lifecycle state, in the same short critical
    /// section as the registration (``reportState(_:)`` right after `init` would take another).
    ///
    /// ```swift
    /// final class Subscription: TrackedObject {
    ///     init() { super.init(state: .active) }
    ///     func cancel() { reportState(.disposed) }
    /// }
    /// ```
    @inline(__always)
    public init(label: String? = nil, state: ObjectState) {
        #if !LEAKGRAPH_DISABLED
            if Configuration.shared.enabled.load(ordering: .relaxed) {
                leakGraphSlot = TrackedObject.register(self, label: label, stateCode: state.code)
            }
        #endif
    }

    deinit {
        #if !LEAKGRAPH_DISABLED
            if leakGraphSlot >= 0 {
                Registry.shared.unregister(
                    slot: leakGraphSlot, address: UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
            }
        #endif
    }

    @inline(never)
    private static func register(_ object: TrackedObject, label: String?, stateCode: UInt8 = 0) -> Int32 {
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let metadata = UInt(bitPattern: unsafeBitCast(type(of: object), to: UnsafeRawPointer.self))
        let scope = LeakScope.currentScopeIDIfAny()
        // Skip this function and the initialisers above it is not possible in general (subclass
        // initialisers nest), so the symbolicator drops LeakGraph's own frames when reporting.
        let shared = lg_get_shared_stack()
        if shared > 0 {
            // Inside a shared allocation site: reuse its stack instead of capturing one.
            return Registry.shared.registerTracked(
                address, metadata: metadata, label: label, stackID: shared - 1, scope: scope, stateCode: stateCode)
        }
        let depth = StackCapture.wanted()
        if depth == 0 {
            return Registry.shared.registerTracked(
                address, metadata: metadata, label: label, stack: nil, scope: scope, stateCode: stateCode)
        }
        // Keyed: a subscription made again and again captures the same frames, whose stack
        // number the thread then remembers instead of hashing them under the registry's lock.
        return StackCapture.withStack(depth: depth, skip: 2) { stack, key in
            Registry.shared.registerTracked(
                address, metadata: metadata, label: label, stack: stack, key: key, scope: scope, stateCode: stateCode)
        }
    }

    /// Whether this instance is registered (tracking was on when it was allocated).
    public final var isTracked: Bool { leakGraphSlot >= 0 }

    /// The registry slot (valid while ``isTracked``).
    final var trackingSlot: Int32 { leakGraphSlot }

    /// Reports this object's lifecycle state (shown in reports; a finished subscription that is
    /// still held is flagged). Costs one short critical section.
    public final func reportState(_ state: ObjectState) {
        if leakGraphSlot >= 0 { Registry.shared.setState(slot: leakGraphSlot, state) }
    }

    /// Changes the label shown in reports.
    public final func setTrackingLabel(_ label: String?) {
        if leakGraphSlot >= 0 { Registry.shared.setLabel(slot: leakGraphSlot, label) }
    }

    /// Names what holds this object from outside the graph — a Dispatch timer, a run loop, a C
    /// library's callback table — or nil once it no longer does. Reports name it where they say
    /// the object is held by references the graph does not show; it changes no verdict.
    ///
    /// ```swift
    /// timer.setEventHandler { work.tick() }
    /// work.setOutsideHolder("a Dispatch timer (every 1 s on com.app.poll)")
    /// ```
    public final func setOutsideHolder(_ description: String?) {
        if leakGraphSlot >= 0 { Registry.shared.setOutsideHolder(slot: leakGraphSlot, description) }
    }
}
